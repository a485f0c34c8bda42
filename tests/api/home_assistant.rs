//! A real Home Assistant (`homeassistant` from the Python package index, pinned in
//! `scripts/ha-requirements.txt`) runs `examples/home-assistant/configuration.yaml`
//! against a running server; its entities' states are read from its recorder's database.
//!
//! `./scripts/test` installs Home Assistant into a cached virtual environment
//! (`$XDG_CACHE_HOME/rental-test/ha-venv-<version>`, or `RENTAL_HA_VENV`); without
//! it this test fails and says how to install it.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rental_core::access::DoorCodeMode;
use rental_core::demo;
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_tests::http::TestServer;
use serde_json::{Value, json};

/// The Home Assistant version `scripts/ha-requirements.txt` pins.
const HA_VERSION: &str = "2024.3.3";

/// The example configuration, exactly as a host would copy it.
const EXAMPLE: &str = include_str!("../../examples/home-assistant/configuration.yaml");

/// Prints every entity's latest state and attributes from the recorder's database (sqlite).
const READ_STATES: &str = r"
import json, sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
rows = db.execute('''SELECT m.entity_id, s.state, a.shared_attrs FROM states s
  JOIN states_meta m ON s.metadata_id = m.metadata_id
  LEFT JOIN state_attributes a ON s.attributes_id = a.attributes_id
  WHERE s.state_id IN (SELECT MAX(state_id) FROM states GROUP BY metadata_id)''')
print(json.dumps({e: {'state': s, 'attributes': json.loads(a or '{}')} for e, s, a in rows}))
";

/// Home Assistant's virtual environment; `None` when it is not installed (see `rental_tests::tools`).
fn venv() -> Option<PathBuf> {
    let path = std::env::var_os("RENTAL_HA_VENV").map_or_else(
        || {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .expect("HOME or XDG_CACHE_HOME is set");
            cache.join("rental-test").join(format!("ha-venv-{HA_VERSION}"))
        },
        PathBuf::from,
    );
    if !path.join("bin/hass").is_file() {
        rental_tests::tools::missing(
            &format!("Home Assistant {HA_VERSION} in {}", path.display()),
            "install scripts/ha-requirements.txt there, or point RENTAL_HA_VENV at a virtual environment that has it",
        );
        return None;
    }
    Some(path)
}

/// A Home Assistant process, killed (by its PID) when dropped.
struct HomeAssistant(Child);

impl Drop for HomeAssistant {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sea View with per-stay codes and an Airbnb feed never pulled (so stale),
/// and a confirmed guest arriving today; the guest's code.
async fn a_stay_arriving_today(s: &TestServer<rental_core::MemoryStore>) -> String {
    let feed = IcalFeed {
        name: Source::parse("airbnb").unwrap(),
        url: "https://example.com/a.ics".into(),
        reservation_patterns: vec![],
    };
    let sea = {
        let mut edited = demo::sea_view();
        edited.access.door_code_mode = DoorCodeMode::PerStay;
        edited.feeds.ical_feeds = vec![feed];
        edited
    };
    s.rental.import_properties(&[sea]).unwrap();
    let code = s.book("sea-view", "2026-11-22", "2026-11-25", 2).await["code"].as_str().unwrap().to_owned();
    let confirmed = s.act(&code, &json!({"action": "confirm"})).await;
    confirmed.expect(200);
    confirmed.body["access"]["code"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistant_runs_the_example_and_shows_stay_code_turnover_and_stale_feeds() {
    let Some(venv) = venv() else { return };
    let s = TestServer::memory().await;
    let digits = a_stay_arriving_today(&s).await;

    let config = tempfile::tempdir().unwrap();
    let db = config.path().join("states.db");
    let test_only = format!(
        "\n# Added by the test: a fixed place, the recorder it reads, the web server on a free port.\n\
         homeassistant:\n  name: Test\n  latitude: 38.7\n  longitude: -9.1\n  elevation: 0\n  \
         unit_system: metric\n  time_zone: UTC\n  currency: USD\n  country: PT\n\
         recorder:\n  db_url: sqlite:///{}\n  commit_interval: 1\n\
         http:\n  server_host: 127.0.0.1\n  server_port: {}\n",
        db.display(),
        rental_tests::ports::free_port()
    );
    std::fs::write(config.path().join("configuration.yaml"), format!("{EXAMPLE}{test_only}")).unwrap();
    let secrets = format!(
        "rental_summary_url: \"http://{}/api/v1/ha/summary\"\nrental_api_key: \"Bearer {}\"\n",
        s.addr, s.read_key
    );
    std::fs::write(config.path().join("secrets.yaml"), secrets).unwrap();
    let log = std::fs::File::create(config.path().join("hass.out")).unwrap();
    let _ha = HomeAssistant(
        Command::new(venv.join("bin/hass"))
            .arg("--config")
            .arg(config.path())
            .arg("--skip-pip")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .expect("hass starts"),
    );

    let states = wait_for_states(&venv, &db, Duration::from_secs(180)).await.unwrap_or_else(|| {
        let out = std::fs::read_to_string(config.path().join("hass.out")).unwrap_or_default();
        panic!("Home Assistant showed no Sea View stay state within 180 s; its log:\n{out}")
    });
    let state = |entity: &str| states[entity]["state"].as_str().unwrap_or_else(|| panic!("no {entity}")).to_owned();
    assert_eq!(state("sensor.sea_view_stay_state"), "awaiting_check_in");
    assert_eq!(state("sensor.sea_view_next_transition"), "2026-11-22T15:00:00+00:00");
    assert_eq!(state("sensor.sea_view_access_code"), digits);
    let access = &states["sensor.sea_view_access_code"]["attributes"];
    assert_eq!(
        (&access["valid_from"], &access["valid_until"]),
        (&json!("2026-11-22T15:00:00.000Z"), &json!("2026-11-25T11:00:00.000Z"))
    );
    assert_eq!(state("sensor.sea_view_door_code"), "4821", "no code is valid yet: the static one");
    assert_eq!(state("sensor.sea_view_cleaning_from"), "2026-11-25T11:00:00+00:00");
    assert_eq!(state("binary_sensor.rental_feeds_stale"), "on");
    assert_eq!(states["binary_sensor.rental_feeds_stale"]["attributes"]["feeds"], "sea-view/airbnb");
    assert_eq!(
        (state("sensor.rental_stale_feeds"), state("sensor.rentals_checked_in")),
        ("1".to_owned(), "0".to_owned())
    );
    for automation in [
        "automation.rental_warm_the_house_before_an_arrival",
        "automation.rental_warn_when_a_channel_calendar_stops_syncing",
        "automation.rental_put_the_stay_s_code_on_the_lock",
    ] {
        assert_eq!(state(automation), "on", "{automation} loaded");
    }
    s.stop().await;
}

/// Reads the recorder until the stay state sensor has a value, or `limit` passes.
async fn wait_for_states(venv: &std::path::Path, db: &std::path::Path, limit: Duration) -> Option<Value> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if !db.exists() {
            continue;
        }
        let out = Command::new(venv.join("bin/python")).arg("-c").arg(READ_STATES).arg(db).output().ok()?;
        let Ok(states) = serde_json::from_slice::<Value>(&out.stdout) else { continue };
        let stay = states["sensor.sea_view_stay_state"]["state"].as_str().unwrap_or("unknown");
        let stale = states["binary_sensor.rental_feeds_stale"]["state"].as_str().unwrap_or("unknown");
        if !["unknown", "unavailable"].contains(&stay) && !["unknown", "unavailable"].contains(&stale) {
            return Some(states);
        }
    }
    None
}
