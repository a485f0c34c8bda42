//! Example bodies shown with the operations; a test checks each against its
//! schema.

use serde_json::{Map, Value, json};

/// The `example` (or named `examples`) of a request body of schema `name`.
pub(super) fn request_examples(name: &str) -> Map<String, Value> {
    let stay = json!({"property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27"});
    let (key, value) = match name {
        "QuoteRequest" => ("example", json!({"guests": 3})),
        "NewBooking" => (
            "example",
            json!({"guestName": "Ada Lovelace", "guestEmail": "ada@example.com",
            "guests": 3, "notes": "late arrival"}),
        ),
        "BookingAction" => (
            "examples",
            json!({
                "confirm": {"summary": "Confirm a request", "value": {"action": "confirm"}},
                "cancel": {"summary": "Cancel at the guest's request",
                    "value": {"action": "cancel", "by": "guest", "reason": "plans changed"}},
                "annotate": {"summary": "Add a note", "value": {"action": "annotate", "note": "late arrival"}},
                "authorize": {"summary": "Record a card hold", "value": {"action": "authorize"}},
                "change": {"summary": "Move the stay a night later, for two guests",
                    "value": {"action": "change", "checkIn": "2026-12-21", "checkOut": "2026-12-28", "guests": 2}},
                "check_in": {"summary": "The guest arrived (a lock's first unlock)", "value": {"action": "check_in"}},
                "check_out": {"summary": "The guest left early", "value": {"action": "check_out"}},
            }),
        ),
        "StayLinkAction" => {
            return Map::from_iter([("example".to_owned(), json!({"action": "rotate"}))]);
        }
        "ResendRequest" => {
            return Map::from_iter([("example".to_owned(), json!({"kind": "check_in_instructions"}))]);
        }
        "NewBlock" => {
            return Map::from_iter([(
                "example".to_owned(),
                json!({"startDate": "2026-12-01", "endDate": "2026-12-05", "note": "painting"}),
            )]);
        }
        _ => return Map::new(),
    };
    let value = if key == "example" { merged(&stay, value) } else { value };
    Map::from_iter([(key.to_owned(), value)])
}

fn merged(base: &Value, extra: Value) -> Value {
    let mut all = base.clone();
    if let (Some(all), Value::Object(extra)) = (all.as_object_mut(), extra) {
        all.extend(extra);
    }
    all
}

/// An example of a response body of schema `name`, where there is one.
pub(super) fn response_example(name: &str) -> Option<Value> {
    Some(match name {
        "PropertyList" => json!({"data": [property_example()]}),
        "Property" => property_example(),
        "Availability" => availability_example(),
        "Quote" => quote_example(),
        "BookingList" => json!({"data": [booking_example()], "nextCursor": null}),
        "Booking" => booking_example(),
        "Summary" => summary_example(),
        "SyncResult" => sync_example(),
        "Block" => block_example(),
        "BlockList" => json!({"data": [block_example()]}),
        "PaymentList" => json!({"data": [
            {"id": "pay_BK-7QX2MF_i1", "kind": "installment", "number": 1, "amount": 40_286, "currency": "USD",
                "status": "succeeded", "dueAt": "2026-11-22T07:39:21.123Z", "at": "2026-11-22T07:41:02.518Z",
                "providerRef": "pi_3QX2MF", "error": null},
            {"id": "pay_BK-7QX2MF_i2", "kind": "installment", "number": 2, "amount": 94_002, "currency": "USD",
                "status": "scheduled", "dueAt": "2026-12-06T15:00:00.000Z", "at": null, "providerRef": null,
                "error": null}]}),
        "CheckIn" => json!({"givenAt": "2026-12-15T18:02:11.000Z", "email": "jane@example.com",
            "arrivalTime": "17:30", "guestNames": "Jane Doe\nJohn Doe", "documentGiven": true,
            "documentDeletedAt": null}),
        "SyncStatus" => json!({"feeds": [{"property": "sea-view", "name": "airbnb", "ok": false,
            "lastAttemptAt": "2026-11-22T07:30:00.000Z", "lastSuccessAt": "2026-11-22T05:00:00.000Z",
            "stale": true, "error": "the feed answered 503", "events": 0}]}),
        _ => return None,
    })
}

fn block_example() -> Value {
    json!({"id": "blk_7QX2MF4H8KPA", "property": "sea-view", "startDate": "2026-12-01", "endDate": "2026-12-05",
        "note": "painting", "source": "manual", "createdAt": "2026-11-22T07:39:21.123Z"})
}

fn property_example() -> Value {
    json!({
        "slug": "sea-view", "name": "Sea View Cottage", "timezone": "Europe/Lisbon", "currency": "USD",
        "maxGuests": 4, "baseGuests": 2, "extraGuestFee": 2000, "nightlyRate": 15000, "weekendRate": 18000,
        "cleaningFee": 6000, "taxRate": 1200, "minNights": 2, "maxNights": 28, "weeklyDiscount": 1000,
        "monthlyDiscount": 2000, "checkInTime": "15:00", "checkOutTime": "11:00",
        "seasonalRates": [{"name": "Summer", "startDate": "2026-06-01", "endDate": "2026-08-31",
            "nightlyRate": 22000, "weekendRate": 25000, "minNights": 3}],
        "bookingPage": {"enabled": true, "embedOrigins": ["https://seaviewcottage.example"]},
        "instantBooking": false,
        "paymentTerms": {"installments": [{"share": 5000, "due": "booking"}, {"share": 5000, "daysBeforeCheckIn": 30}],
            "graceHours": 48},
        "securityDeposit": {"amount": 30000, "holdDaysBeforeCheckIn": 2, "releaseDaysAfterCheckOut": 2},
        "cancellationPolicy": {"refunds": [{"daysBeforeCheckIn": 30, "share": 10000}, {"daysBeforeCheckIn": 7, "share": 5000}],
            "graceHours": 48, "graceMinDaysBeforeCheckIn": 14},
    })
}

fn availability_example() -> Value {
    json!({
        "property": "sea-view", "from": "2026-12-01", "to": "2026-12-03", "currency": "USD",
        "nights": [
            {"date": "2026-12-01", "available": true, "price": 15000, "minNights": 2, "status": "available",
             "checkIn": true, "checkOut": true},
            {"date": "2026-12-02", "available": false, "price": 15000, "minNights": 2, "status": "held",
             "checkIn": false, "checkOut": true},
        ],
    })
}

fn quote_example() -> Value {
    json!({
        "property": "sea-view", "checkIn": "2026-12-20", "checkOut": "2026-12-27", "guests": 3,
        "children": 0, "pets": 0, "nights": 7, "available": false, "currency": "USD",
        "nightly": [{"date": "2026-12-20", "base": 15000, "price": 15000},
            {"date": "2026-12-21", "base": 15000, "price": 15000},
            {"date": "2026-12-22", "base": 15000, "price": 15000},
            {"date": "2026-12-23", "base": 15000, "price": 15000},
            {"date": "2026-12-24", "base": 15000, "price": 15000},
            {"date": "2026-12-25", "base": 18000, "price": 18000},
            {"date": "2026-12-26", "base": 18000, "price": 18000}],
        "accommodation": 111_000, "discount": 11100, "discountKind": "length_of_stay", "extraGuestFee": 14000,
        "cleaningFee": 6000, "petFee": 0, "taxes": 14388, "touristTax": 0, "total": 134_288,
        "problems": [{"code": "dates_unavailable", "dates": ["2026-12-24"]}],
    })
}

fn booking_example() -> Value {
    json!({
        "code": "BK-7QX2MF", "property": "sea-view", "propertyName": "Sea View Cottage",
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 3,
        "checkIn": "2026-12-20", "checkOut": "2026-12-27", "nights": 7,
        "status": "pending", "paymentStatus": "unpaid", "total": 134_288, "currency": "USD",
        "source": "api", "locale": "en", "notes": [{"text": "late arrival", "at": "2026-11-22T07:39:21.123Z"}],
        "createdAt": "2026-11-22T07:39:21.123Z", "updatedAt": "2026-11-22T07:39:21.123Z",
        "cancelledBy": null, "cancelReason": null,
        "checkedInAt": null, "checkedInBy": null, "checkedOutAt": null, "checkedOutBy": null, "access": null,
        "amountPaid": 40_286, "amountRefunded": 0, "balanceDue": 94_002, "nextPaymentAt": "2026-12-06T15:00:00.000Z",
        "stayUrl": "https://rental.example/stay/BK-7QX2MF.5f0c1e7a9b3d4c2e8a6f1b0d9c7e5a3b",
    })
}

fn summary_example() -> Value {
    json!({
        "date": "2026-11-22", "generatedAt": "2026-11-22T07:39:21.123Z",
        "totals": {"properties": 1, "occupiedTonight": 1, "checkInsToday": 0, "checkOutsToday": 0,
            "pendingBookings": 1, "checkedIn": 1, "staleFeeds": 0},
        "properties": [{
            "slug": "sea-view", "name": "Sea View Cottage", "date": "2026-11-22", "occupied": true,
            "checkInToday": false, "checkOutToday": false,
            "currentBooking": {"code": "BK-7QX2MF", "guestName": "Ada Lovelace", "guests": 3,
                "checkIn": "2026-11-20", "checkOut": "2026-11-24"},
            "nextArrival": {"code": "BK-K3M9PW", "guestName": "Alan Turing", "checkIn": "2026-12-01",
                "status": "pending"},
            "checkInTime": "3:00 PM", "checkOutTime": "11:00 AM", "doorCode": "482913", "wifiSsid": "SeaView-Guest",
            "stayState": "checked_in", "nextTransitionAt": "2026-11-24T11:00:00.000Z",
            "access": {"code": "482913", "validFrom": "2026-11-20T14:30:00.000Z",
                "validUntil": "2026-11-24T11:00:00.000Z", "booking": "BK-7QX2MF"},
            "accessWithheld": null,
            "turnover": {"sameDay": false, "cleaningFrom": "2026-11-24T11:00:00.000Z",
                "cleaningUntil": "2026-12-01T15:00:00.000Z", "gapNights": 7, "unbookableGap": false},
            "feeds": [{"name": "airbnb", "ok": true, "lastAttemptAt": "2026-11-22T07:30:00.000Z",
                "lastSuccessAt": "2026-11-22T07:30:00.000Z", "stale": false}],
        }],
    })
}

fn sync_example() -> Value {
    json!({
        "startedAt": "2026-11-22T07:39:21.123Z", "finishedAt": "2026-11-22T07:39:21.123Z",
        "feeds": 0, "succeeded": 0, "failed": 0, "created": 0, "updated": 0, "cancelled": 0, "conflicts": 0,
        "results": [],
    })
}
