//! The built-in English wording of every kind: a subject, a plain text and
//! an HTML part each, in the template language of `super::template`.

use super::MessageKind;

/// The English subject, text and HTML of `kind`.
pub(super) fn wording(kind: MessageKind) -> [&'static str; 3] {
    match kind {
        MessageKind::RequestReceived => [
            "We received your request for {{ property_name }}",
            "Hello {{ guest_name }},\n\nthank you for your request to stay at {{ property_name }} from {{ check_in }} to {{ check_out }} ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Your booking code is {{ booking_code }}.\n\nThe host will confirm it shortly; we will write again then.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>thank you for your request to stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Your booking code is <b>{{ booking_code }}</b>.</p><p>The host will confirm it shortly; we will write again then.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::HostRequest => [
            "New request {{ booking_code }} for {{ property_name }}",
            "A new request for {{ property_name }} came in ({{ source }}):\n\n{{ guest_name }} <{{ guest_email }}>\n{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}\nCode {{ booking_code }}\n{% if notes %}Notes: {{ notes }}\n{% endif %}",
            "<p>A new request for <b>{{ property_name }}</b> came in ({{ source }}):</p><p>{{ guest_name }} &lt;{{ guest_email }}&gt;<br>{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}<br>Code <b>{{ booking_code }}</b></p>{% if notes %}<p>Notes: {{ notes }}</p>{% endif %}",
        ],
        MessageKind::HostRequestExpiring => [
            "Request {{ booking_code }} for {{ property_name }} lapses in two hours",
            "The request {{ booking_code }} for {{ property_name }} ({{ source }}) has no answer yet:\n\n{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}\n\nIn two hours it lapses and its nights are free again. Confirm or decline it in the admin's pending requests before then.\n",
            "<p>The request <b>{{ booking_code }}</b> for <b>{{ property_name }}</b> ({{ source }}) has no answer yet:</p><p>{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}</p><p>In two hours it lapses and its nights are free again. Confirm or decline it in the admin's pending requests before then.</p>",
        ],
        MessageKind::Confirmed => [
            "Your stay at {{ property_name }} is confirmed",
            "Hello {{ guest_name }},\n\nyour stay at {{ property_name }} from {{ check_in }} to {{ check_out }} is confirmed ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Booking code: {{ booking_code }}.\n\nCheck-in is from {{ check_in_time }}, check-out by {{ check_out_time }}. We will send the arrival details before you come.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>your stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} is confirmed ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Booking code: <b>{{ booking_code }}</b>.</p><p>Check-in is from {{ check_in_time }}, check-out by {{ check_out_time }}. We will send the arrival details before you come.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Changed => [
            "Your booking {{ booking_code }} has changed",
            "Hello {{ guest_name }},\n\nyour booking at {{ property_name }} now reads: {{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>your booking at <b>{{ property_name }}</b> now reads: {{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Cancelled => [
            "{% if expired %}Your request {{ booking_code }} has lapsed{% else %}Your booking {{ booking_code }} is cancelled{% endif %}",
            "Hello {{ guest_name }},\n\n{% if expired %}your request to stay at {{ property_name }} from {{ check_in }} to {{ check_out }} lapsed: the host did not answer it in time, and the nights are free again. You are welcome to ask again.{% else %}your booking at {{ property_name }} from {{ check_in }} to {{ check_out }} is cancelled.{% if cancel_reason %} Reason: {{ cancel_reason }}{% endif %}{% endif %}\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>{% if expired %}your request to stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} lapsed: the host did not answer it in time, and the nights are free again. You are welcome to ask again.{% else %}your booking at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} is cancelled.{% if cancel_reason %} Reason: {{ cancel_reason }}{% endif %}{% endif %}</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckInInstructions => [
            "Arriving at {{ property_name }}: your door code",
            "Hello {{ guest_name }},\n\nyou arrive at {{ property_name }} on {{ check_in }}; check-in is from {{ check_in_time }}.\n\nDoor code: {{ door_code }}\nIt opens the door from {{ access_from }} until {{ access_until }}.\n{% if wifi_name %}Wi-Fi: {{ wifi_name }}\n{% endif %}{% if arrival_notes %}\n{{ arrival_notes }}\n{% endif %}\nSafe travels!\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>you arrive at <b>{{ property_name }}</b> on {{ check_in }}; check-in is from {{ check_in_time }}.</p><p>Door code: <b>{{ door_code }}</b><br>It opens the door from {{ access_from }} until {{ access_until }}.</p>{% if wifi_name %}<p>Wi-Fi: {{ wifi_name }}</p>{% endif %}{% if arrival_notes %}<p style=\"white-space: pre-line\">{{ arrival_notes }}</p>{% endif %}<p>Safe travels!</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckOutReminder => [
            "Check-out on {{ check_out }} by {{ check_out_time }}",
            "Hello {{ guest_name }},\n\na reminder that check-out from {{ property_name }} is on {{ check_out }} by {{ check_out_time }}. Thank you for staying with us!\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>a reminder that check-out from <b>{{ property_name }}</b> is on {{ check_out }} by {{ check_out_time }}. Thank you for staying with us!</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::PaymentFailed => [
            "Your payment for {{ property_name }} did not go through",
            "Hello {{ guest_name }},\n\nwe could not take the payment due for your stay at {{ property_name }} from {{ check_in }} to {{ check_out }} (booking {{ booking_code }}): your bank refused it. {{ balance_due }} is still to pay.\n\nPlease pay it on your stay page, with this card or another one; a booking left unpaid is cancelled under its cancellation policy.\n{% if stay_url %}\nYour stay page: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>we could not take the payment due for your stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} (booking <b>{{ booking_code }}</b>): your bank refused it. {{ balance_due }} is still to pay.</p><p>Please pay it on your stay page, with this card or another one; a booking left unpaid is cancelled under its cancellation policy.</p>{% if stay_url %}<p>Your stay page: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
    }
}
