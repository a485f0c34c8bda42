//! The built-in German wording of every kind: a subject, a plain text and an
//! HTML part each, with the variables of the English ones (`builtin_en`).

use super::MessageKind;

/// The German subject, text and HTML of `kind`.
pub(super) fn wording(kind: MessageKind) -> [&'static str; 3] {
    match kind {
        MessageKind::RequestReceived => [
            "Ihre Anfrage für {{ property_name }} ist eingegangen",
            "Hallo {{ guest_name }},\n\nvielen Dank für Ihre Anfrage für {{ property_name }} vom {{ check_in }} bis {{ check_out }} ({{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}). Ihr Buchungscode lautet {{ booking_code }}.\n\nDer Gastgeber bestätigt sie in Kürze; wir schreiben Ihnen dann wieder.\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>vielen Dank für Ihre Anfrage für <b>{{ property_name }}</b> vom {{ check_in }} bis {{ check_out }} ({{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}). Ihr Buchungscode lautet <b>{{ booking_code }}</b>.</p><p>Der Gastgeber bestätigt sie in Kürze; wir schreiben Ihnen dann wieder.</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::HostRequest => [
            "Neue Anfrage {{ booking_code }} für {{ property_name }}",
            "Eine neue Anfrage für {{ property_name }} ist eingegangen ({{ source }}):\n\n{{ guest_name }} <{{ guest_email }}>\n{{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}\nCode {{ booking_code }}\n{% if notes %}Notizen: {{ notes }}\n{% endif %}",
            "<p>Eine neue Anfrage für <b>{{ property_name }}</b> ist eingegangen ({{ source }}):</p><p>{{ guest_name }} &lt;{{ guest_email }}&gt;<br>{{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}<br>Code <b>{{ booking_code }}</b></p>{% if notes %}<p>Notizen: {{ notes }}</p>{% endif %}",
        ],
        MessageKind::HostRequestExpiring => [
            "Anfrage {{ booking_code }} für {{ property_name }} verfällt in zwei Stunden",
            "Die Anfrage {{ booking_code }} für {{ property_name }} ({{ source }}) ist noch unbeantwortet:\n\n{{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}\n\nIn zwei Stunden verfällt sie und ihre Nächte sind wieder frei. Bestätigen oder lehnen Sie sie vorher unter den offenen Anfragen im Admin ab.\n",
            "<p>Die Anfrage <b>{{ booking_code }}</b> für <b>{{ property_name }}</b> ({{ source }}) ist noch unbeantwortet:</p><p>{{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}</p><p>In zwei Stunden verfällt sie und ihre Nächte sind wieder frei. Bestätigen oder lehnen Sie sie vorher unter den offenen Anfragen im Admin ab.</p>",
        ],
        MessageKind::Confirmed => [
            "Ihr Aufenthalt in {{ property_name }} ist bestätigt",
            "Hallo {{ guest_name }},\n\nIhr Aufenthalt in {{ property_name }} vom {{ check_in }} bis {{ check_out }} ist bestätigt ({{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}). Buchungscode: {{ booking_code }}.\n\nCheck-in ab {{ check_in_time }}, Check-out bis {{ check_out_time }}. Die Anreisedetails senden wir Ihnen vor Ihrer Ankunft.\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>Ihr Aufenthalt in <b>{{ property_name }}</b> vom {{ check_in }} bis {{ check_out }} ist bestätigt ({{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}). Buchungscode: <b>{{ booking_code }}</b>.</p><p>Check-in ab {{ check_in_time }}, Check-out bis {{ check_out_time }}. Die Anreisedetails senden wir Ihnen vor Ihrer Ankunft.</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Changed => [
            "Ihre Buchung {{ booking_code }} wurde geändert",
            "Hallo {{ guest_name }},\n\nIhre Buchung in {{ property_name }} lautet jetzt: {{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}.\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>Ihre Buchung in <b>{{ property_name }}</b> lautet jetzt: {{ check_in }} bis {{ check_out }}, {{ nights }} {% if nights != 1 %}Nächte{% else %}Nacht{% endif %}, {{ guests }} {% if guests != 1 %}Gäste{% else %}Gast{% endif %}, {{ total }}.</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Cancelled => [
            "{% if expired %}Ihre Anfrage {{ booking_code }} ist verfallen{% else %}Ihre Buchung {{ booking_code }} ist storniert{% endif %}",
            "Hallo {{ guest_name }},\n\n{% if expired %}Ihre Anfrage für {{ property_name }} vom {{ check_in }} bis {{ check_out }} ist verfallen: Der Gastgeber hat nicht rechtzeitig geantwortet, und die Nächte sind wieder frei. Sie können gern erneut anfragen.{% else %}Ihre Buchung in {{ property_name }} vom {{ check_in }} bis {{ check_out }} ist storniert.{% if cancel_reason %} Grund: {{ cancel_reason }}{% endif %}{% endif %}\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>{% if expired %}Ihre Anfrage für <b>{{ property_name }}</b> vom {{ check_in }} bis {{ check_out }} ist verfallen: Der Gastgeber hat nicht rechtzeitig geantwortet, und die Nächte sind wieder frei. Sie können gern erneut anfragen.{% else %}Ihre Buchung in <b>{{ property_name }}</b> vom {{ check_in }} bis {{ check_out }} ist storniert.{% if cancel_reason %} Grund: {{ cancel_reason }}{% endif %}{% endif %}</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckInInstructions => [
            "Ihre Anreise nach {{ property_name }}: Ihr Türcode",
            "Hallo {{ guest_name }},\n\nSie reisen am {{ check_in }} in {{ property_name }} an; Check-in ist ab {{ check_in_time }}.\n\nTürcode: {{ door_code }}\nEr öffnet die Tür von {{ access_from }} bis {{ access_until }}.\n{% if wifi_name %}WLAN: {{ wifi_name }}\n{% endif %}{% if arrival_notes %}\n{{ arrival_notes }}\n{% endif %}\nGute Reise!\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>Sie reisen am {{ check_in }} in <b>{{ property_name }}</b> an; Check-in ist ab {{ check_in_time }}.</p><p>Türcode: <b>{{ door_code }}</b><br>Er öffnet die Tür von {{ access_from }} bis {{ access_until }}.</p>{% if wifi_name %}<p>WLAN: {{ wifi_name }}</p>{% endif %}{% if arrival_notes %}<p style=\"white-space: pre-line\">{{ arrival_notes }}</p>{% endif %}<p>Gute Reise!</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckOutReminder => [
            "Check-out am {{ check_out }} bis {{ check_out_time }}",
            "Hallo {{ guest_name }},\n\nzur Erinnerung: Der Check-out aus {{ property_name }} ist am {{ check_out }} bis {{ check_out_time }}. Vielen Dank für Ihren Aufenthalt!\n{% if stay_url %}\nIhre Aufenthaltsseite mit allem zu Ihrer Buchung: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>zur Erinnerung: Der Check-out aus <b>{{ property_name }}</b> ist am {{ check_out }} bis {{ check_out_time }}. Vielen Dank für Ihren Aufenthalt!</p>{% if stay_url %}<p>Ihre Aufenthaltsseite mit allem zu Ihrer Buchung: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::PaymentFailed => [
            "Ihre Zahlung für {{ property_name }} ist nicht durchgegangen",
            "Hallo {{ guest_name }},\n\nwir konnten die fällige Zahlung für Ihren Aufenthalt in {{ property_name }} vom {{ check_in }} bis {{ check_out }} (Buchung {{ booking_code }}) nicht einziehen: Ihre Bank hat sie abgelehnt. {{ balance_due }} sind noch offen.\n\nBitte zahlen Sie den Betrag auf Ihrer Aufenthaltsseite, mit dieser oder einer anderen Karte; eine unbezahlte Buchung wird nach ihren Stornobedingungen storniert.\n{% if stay_url %}\nIhre Aufenthaltsseite: {{ stay_url }}\n{% endif %}",
            "<p>Hallo {{ guest_name }},</p><p>wir konnten die fällige Zahlung für Ihren Aufenthalt in <b>{{ property_name }}</b> vom {{ check_in }} bis {{ check_out }} (Buchung <b>{{ booking_code }}</b>) nicht einziehen: Ihre Bank hat sie abgelehnt. {{ balance_due }} sind noch offen.</p><p>Bitte zahlen Sie den Betrag auf Ihrer Aufenthaltsseite, mit dieser oder einer anderen Karte; eine unbezahlte Buchung wird nach ihren Stornobedingungen storniert.</p>{% if stay_url %}<p>Ihre Aufenthaltsseite: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
    }
}
