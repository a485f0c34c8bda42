//! The guest's pages in German (formal address, `Sie`).

use super::{Words, count};

/// The German table.
pub(super) static WORDS: Words = Words {
    book_your_stay: "Aufenthalt buchen",
    house_rules: "Hausregeln",
    up_to_guests: |n| format!("Bis zu {}", count(n, "Gast", "Gäste")),
    at_least_nights: |n| format!("Mindestens {}", count(n, "Nacht", "Nächte")),
    season_minimum: |n, from, to| format!("{n} vom {from} bis {to}"),
    check_in_from: |t| format!("Check-in ab {t}"),
    check_out_by: |t| format!("Check-out bis {t}"),
    pick_your_nights: "Wählen Sie Ihre Nächte",
    hint_start: "Wählen Sie Ihren Anreisetag, dann Ihren Abreisetag.",
    hint_check_in: |d| format!("Anreise {d} gewählt. Wählen Sie jetzt Ihren Abreisetag."),
    hint_both: |a, b| format!("{a} bis {b} gewählt. Wählen Sie einen anderen Tag, um neu zu beginnen."),
    months: "Monate",
    earlier: "← Früher",
    later: "Später →",
    legend: ["frei: wählen zum Anreisen", "frei, keine Anreise", "belegt", "Ihr Aufenthalt"],
    weekday_letters: ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"],
    sr_check_in: "frei, Anreise",
    sr_check_out: "Abreise",
    sr_past: "vergangen",
    sr_taken: "belegt",
    why_days: [|d| format!("Anreise nur {d}"), |d| format!("Abreise nur {d}")],
    why_notice: |h| format!("zu kurzfristig: Aufenthalte brauchen {h} Stunden Vorlauf"),
    why_window_preparation: ("noch zu weit im Voraus", "frei gehalten, um das Haus vorzubereiten"),
    why_nights: [
        |n| format!("eine zu kurze Lücke: Aufenthalte ab hier dauern mindestens {}", count(n, "Nacht", "Nächte")),
        |n| format!("zu kurz: dieser Aufenthalt dauert mindestens {}", count(n, "Nacht", "Nächte")),
        |n| format!("zu lang: Aufenthalte dauern höchstens {}", count(n, "Nacht", "Nächte")),
        |n| format!("eine kurze Lücke: buchbar ab {}", count(n, "Nacht", "Nächte")),
    ],
    rule_days: [|d| format!("Anreise nur {d}."), |d| format!("Abreise nur {d}.")],
    rule_counts: [
        |h| format!("Buchen Sie mindestens {h} Stunden vor der Anreise."),
        |d| format!("Anreise höchstens {d} Tage ab heute."),
        |n| format!("{} vor und nach jedem Aufenthalt bleiben frei.", count(n, "Nacht", "Nächte")),
    ],
    rule_gap: |gap, n| {
        format!(
            "Kurze Lücken von bis zu {} zwischen Aufenthalten sind ab {} buchbar.",
            count(gap, "Nacht", "Nächten"),
            count(n, "Nacht", "Nächten")
        )
    },
    your_stay: "Ihr Aufenthalt",
    check_in: "Anreise",
    check_out: "Abreise",
    guests: "Gäste",
    of_whom_children: "Davon Kinder",
    pets: "Haustiere",
    promo_code: "Aktionscode",
    show_the_price: "Preis anzeigen",

    cannot_be_booked: "Diese Daten können nicht gebucht werden",
    unreadable: [
        "Der Anreisetag ist kein Datum.",
        "Der Abreisetag ist kein Datum.",
        "Die Zahl der Gäste ist keine Zahl ab 1.",
    ],
    nights_taken: |d| format!("Einige dieser Nächte sind schon belegt: {d}."),
    nights_just_taken: |d| format!("Einige dieser Nächte wurden gerade gebucht: {d}. Wählen Sie andere Daten."),
    min_nights: |d, n| format!("Aufenthalte ab {d} dauern mindestens {}.", count(n, "Nacht", "Nächte")),
    max_nights: |d, n| format!("Aufenthalte ab {d} dauern höchstens {}.", count(n, "Nacht", "Nächte")),
    max_guests: |n| format!("Das Haus bietet höchstens {} Platz.", count(n, "Gast", "Gästen")),
    past_dates: |d| format!("Die Anreise kann nicht vor heute liegen, {d}."),
    beyond_horizon: |d| format!("Buchbar sind Anreisen bis {d}."),
    starts_only_on: |days| format!("Aufenthalte beginnen nur {days}."),
    ends_only_on: |days| format!("Aufenthalte enden nur {days}."),
    max_pets: |n| match n {
        0 => "Haustiere sind nicht erlaubt.".to_owned(),
        n => format!("Das Haus erlaubt höchstens {}.", count(n, "Haustier", "Haustiere")),
    },
    notice: |h, d| format!("Aufenthalte brauchen {h} Stunden Vorlauf: die früheste Anreise ist {d}."),
    weekdays_plural: (["montags", "dienstags", "mittwochs", "donnerstags", "freitags", "samstags", "sonntags"], "und"),
    discounts: ["Rabatt für kurze Lücken", "Frühbucherrabatt", "Aktionscode", "Monatsrabatt", "Wochenrabatt"],
    price_for: |n| format!("Preis für {}", count(n, "Nacht", "Nächte")),
    stay_line: |a, b, g| format!("{a} bis {b}, {}", count(g, "Gast", "Gäste")),
    nights: |n| count(n, "Nacht", "Nächte"),
    price_lines: ["Zusätzliche Gäste", "Reinigung", "Haustiergebühr", "Steuern", "Kurtaxe", "Gesamt"],
    each_night: "Jede Nacht",
    pick_other_dates: "Wählen Sie andere Daten, um deren Preis zu sehen.",

    request_to_book: "Buchung anfragen",
    not_sent: "Ihre Anfrage wurde nicht gesendet:",
    your_name: "Ihr Name",
    your_email: "Ihre E-Mail-Adresse",
    note_for_host: "Eine Nachricht an den Gastgeber ",
    optional: "(optional)",
    leave_empty: "Dieses Feld leer lassen",
    nothing_charged: "Jetzt wird nichts berechnet. Der Gastgeber bestätigt Ihre Anfrage per E-Mail.",
    book_errors: [
        ("Seite nicht gefunden", "Hier gibt es keine Buchungsseite. Prüfen Sie den Link, dem Sie gefolgt sind."),
        (
            "Zu viele Anfragen",
            "Von Ihrer Adresse kamen zu viele Anfragen. Bitte warten Sie ein paar Minuten und versuchen Sie es erneut.",
        ),
        ("Ungültige Anfrage", "Die Anfrage konnte nicht gelesen werden. Gehen Sie zurück und versuchen Sie es erneut."),
        (
            "Anfrage nicht gesendet",
            "Ihre Anfrage konnte nicht gesendet werden. Gehen Sie zurück, lassen Sie das versteckte Feld leer und \
             versuchen Sie es erneut.",
        ),
        ("Nicht erlaubt", "Bitte verwenden Sie die Links und Schaltflächen der Seite."),
        (
            "Bitte versuchen Sie es erneut",
            "Buchungen sind gerade nicht möglich. Bitte versuchen Sie es in einer Minute erneut.",
        ),
        ("Etwas ist schiefgegangen", "Bei uns ist etwas schiefgegangen."),
    ],
    limited: ["Zu viele Anfragen", "Ihre Anfrage", "Anfrage erneut senden", "Zurück zum Kalender und zum Preis"],
    limited_alert: |minutes| {
        let wait = if minutes == 1 { "eine Minute".to_owned() } else { format!("{minutes} Minuten") };
        format!(
            "Von Ihrer Adresse kamen zu viele Anfragen, deshalb wurde diese nicht gesendet. Bitte warten Sie {wait} \
             und senden Sie sie dann erneut: Ihre Eingaben stehen unten."
        )
    },
    limited_stay: |check_in, check_out, guests| {
        let plural = if guests == "1" { "Gast" } else { "Gäste" };
        format!("Anreise {check_in}, Abreise {check_out}, {guests} {plural}")
    },
    form_refusals: [
        "Bitte wählen Sie einen Anreisetag.",
        "Bitte wählen Sie einen Abreisetag.",
        "Die Abreise muss nach der Anreise liegen.",
        "Bitte wählen Sie, wie viele Gäste kommen.",
        "Bitte geben Sie Ihren Namen ein.",
        "Bitte kürzen Sie Ihren Namen auf höchstens 200 Zeichen.",
        "Bitte geben Sie Ihre E-Mail-Adresse ein.",
        "Bitte geben Sie eine E-Mail-Adresse wie name@example.com ein.",
    ],
    stay_can_be: |limit| {
        let nights = limit.replace("at most", "höchstens").replace("at least", "mindestens");
        format!("Ein Aufenthalt dauert {}.", nights.replace("nights", "Nächte").replace("night", "Nacht"))
    },

    request_titles: ["Anfrage gesendet", "Aufenthalt bestätigt", "Anfrage geschlossen"],
    request_code: ("Ihr Anfragecode lautet ", ". Bewahren Sie ihn für Fragen zu Ihrem Aufenthalt auf."),
    where_name_nights_total: ["Wo", "Name", "Nächte", "Gesamt"],
    what_next: "Wie es weitergeht",
    verify_email: |to, hold| {
        format!(
            "Sehen Sie in Ihre E-Mails: Wir haben einen Link an {to} gesendet. Öffnen Sie ihn innerhalb von {hold} Minuten, \
             um diese Nächte zu halten und Ihre Anfrage an den Gastgeber zu senden; bis dahin sind die Nächte nur \
             für die Bestätigung Ihrer Adresse reserviert."
        )
    },
    held_for_you: |to| {
        format!(
            "Diese Nächte sind für Sie reserviert, während der Gastgeber Ihre Anfrage prüft. Sie hören vom \
             Gastgeber unter {to}: Es wird nichts berechnet, und nichts ist sicher, bis der Gastgeber bestätigt."
        )
    },
    see_you_on: |d| format!("Der Gastgeber hat Ihren Aufenthalt bestätigt. Bis {d}!"),
    request_closed: "Diese Anfrage ist nicht mehr offen. Sie können andere Daten anfragen.",
    stay_page_link: (
        "Alles zu dieser Buchung, von jetzt bis zu Ihrer Abreise, steht auf Ihrer privaten Aufenthaltsseite: ",
        "Aufenthaltsseite öffnen",
        ". Bewahren Sie ihre Adresse auf: Sie ist der Schlüssel zu Ihrer Buchung.",
    ),
    back_to: |name| format!("Zurück zu {name}"),

    verify_subject: |property| format!("Bestätigen Sie Ihre E-Mail-Adresse für Ihre Anfrage in {property}"),
    verify_asked: |property, from, to| {
        format!("Jemand hat mit dieser E-Mail-Adresse {property} vom {from} bis {to} angefragt.")
    },
    verify_within: |minutes| {
        format!("Um die Anfrage zu behalten, öffnen Sie diesen Link innerhalb von {minutes} Minuten:")
    },
    verify_not_you: "Wenn Sie es nicht waren, ignorieren Sie diese E-Mail: Die Nächte werden frei, und es kommt nichts \
                     weiter.",
    verify_page: [
        "Bestätigen Sie Ihre E-Mail-Adresse",
        "Meine E-Mail-Adresse bestätigen",
        "Ihre E-Mail-Adresse ist bestätigt",
    ],
    verify_prompt: |property, from, to| {
        format!(
            "Bestätigen Sie, dass diese E-Mail-Adresse Ihnen gehört, um Ihre Anfrage für {property} vom {from} \
             bis {to} zu behalten."
        )
    },
    verify_status: (
        |property| {
            format!(
                "Danke: Ihre Anfrage für {property} ist beim Gastgeber, der per E-Mail antwortet. Ihre Nächte sind \
                 so lange reserviert."
            )
        },
        "Der Gastgeber hat Ihren Aufenthalt bestätigt.",
        "Diese Anfrage ist geschlossen (eine nicht rechtzeitig bestätigte E-Mail-Adresse verfällt). Sie können die \
         Daten auf der Buchungsseite erneut anfragen.",
    ),

    stay_at: |name| format!("Ihr Aufenthalt in {name}"),
    statuses: ["Anfrage: wartet auf den Gastgeber", "Bestätigt", "Storniert"],
    your_booking: "Ihre Buchung",
    booking_code: "Buchungscode",
    from_time: |t| format!(" ab {t}"),
    by_time: |t| format!(" bis {t}"),
    address: "Adresse",
    house_guide: "Hausinfo",
    getting_in: "Ankommen",
    access_labels: ["Türcode", "Öffnet die Tür", "WLAN", "WLAN-Passwort"],
    from_until: |a, b| format!("vom {a} bis {b}"),
    missing: [
        "Ihr Türcode erscheint hier, sobald der Gastgeber Ihren Aufenthalt bestätigt.",
        "Ihr Aufenthalt ist vorbei: Der Türcode öffnet die Tür nicht mehr.",
        "Ihr Türcode erscheint hier, sobald alles Fällige bezahlt ist.",
        "Ihr Türcode erscheint hier, sobald Sie den Online-Check-in unten gesendet haben.",
        "Ihr Türcode erscheint hier, sobald die Kaution auf Ihrer Karte vorgemerkt ist.",
    ],
    appears_on: |at| format!("Ihr Türcode erscheint am {at}."),
    moment: |day, time, city| format!("{day} um {time} (Ortszeit {city})"),
    payment_labels: ["Zahlung", "Bezahlt", "Erstattet", "Noch offen", "Nächste Zahlung", "jetzt fällig"],
    pay_now_by_card: "Jetzt mit Karte bezahlen",
    pay_amount: |amount| format!("{amount} bezahlen"),
    booking_at: |code, name| format!("Buchung {code} in {name}."),
    card_back: ("Karte", "Zurück zu Ihrem Aufenthalt"),
    pay_for_stay_at: |name| format!("Ihren Aufenthalt in {name} bezahlen"),
    bank_confirms: (
        "Zahlung bestätigen",
        "Ihre Bank bittet Sie, diese Zahlung zu bestätigen: Folgen Sie ihrem Fenster.",
    ),
    payment_not_made: |why| {
        format!(
            "Die Zahlung wurde nicht ausgeführt: {why}. Gehen Sie zurück zu Ihrer Aufenthaltsseite, um es erneut zu versuchen."
        )
    },
    bank_refused: "Ihre Bank hat sie nicht bestätigt",
    cancelling: "Stornieren",
    withdraw_request: "Dies ist noch eine Anfrage: Wenn Sie sie zurückziehen, werden ihre Nächte frei, und es wird \
                       nichts weiter berechnet.",
    refund_now: |refund, paid, percent| {
        format!(
            "Wenn Sie jetzt stornieren, erhalten Sie {refund} der gezahlten {paid} zurück (die Stornobedingungen \
             erstatten {percent} % des Gesamtpreises)."
        )
    },
    refund_nothing_paid: |percent| {
        format!(
            "Wenn Sie jetzt stornieren, erstatten die Stornobedingungen {percent} % des Gesamtpreises; hier wurde \
             nichts gezahlt, also wird nichts erstattet und nichts weiter berechnet."
        )
    },
    cancel_this_booking: "Diese Buchung stornieren…",
    is_cancelled: "Diese Buchung ist storniert.",
    nothing_back: "Die Stornobedingungen erstatten jetzt nichts: Schreiben Sie Ihrem Gastgeber, wenn sich Ihre Pläne \
                   ändern.",
    cancel_stay_at: |name| format!("Ihren Aufenthalt in {name} stornieren?"),
    too_many_attempts: |minutes| {
        format!("Zu viele Versuche auf dieser Seite: Bitte versuchen Sie es in {minutes} Minuten erneut.")
    },
    booking_from_to: |code, a, b| format!("Buchung {code}, {a} bis {b}."),
    yes_cancel: "Ja, meine Buchung stornieren",
    no_keep: "Nein, Buchung behalten",

    online_check_in: "Online-Check-in",
    check_fields: "Bitte prüfen Sie die markierten Felder.",
    check_in_received: |at| format!("Danke: Ihre Angaben sind am {at} eingegangen. Sie können sie unten ändern."),
    check_in_hint: "Bitte teilen Sie Ihrem Gastgeber vor der Anreise ein paar Angaben mit.",
    send_details: "Angaben senden",
    check_in_labels: [
        "E-Mail",
        "Telefon",
        "Voraussichtliche Ankunftszeit",
        "Namen aller Gäste (einer pro Zeile)",
        "Ihre Wohnadresse",
        "Reisepass- oder Ausweisnummer",
    ],
    optional_suffix: " (optional)",
    document_kept: "Erhalten; senden Sie sie nur erneut, um sie zu ändern.",
    form_too_old: "Dieses Formular ist zu alt oder unvollständig: Bitte prüfen Sie Ihre Angaben und senden Sie sie \
                   erneut.",
    form_sent_already: "Dieses Formular wurde schon gesendet: Bitte prüfen Sie Ihre Angaben und senden Sie sie \
                        erneut.",
};
