//! The property editor's preview quote: the stay a host picks, priced under
//! the rules as the form holds them (saved or not) against the real calendar.

use std::sync::Arc;

use maud::{Markup, html};
use rental_core::pricing::{Asked, DiscountKind, Quote};
use rental_core::{FieldError, Property, Rental, Stay, Store, parse_date};

use super::form::Form;
use crate::book::page::{day, money};
use crate::book::view::refusal;
use crate::reply::blocking;

/// The stay and the guests, children and pets asked.
type Party = (Stay, [u32; 3]);

/// What the preview box shows: the stay asked (as typed) and, once asked, its quote.
#[derive(Debug, Default)]
pub struct Preview {
    check_in: String,
    check_out: String,
    guests: String,
    children: String,
    pets: String,
    promo_code: String,
    /// The quote of the stay asked.
    quote: Option<Quote>,
}

impl Preview {
    /// The empty box of a page that asked for no preview.
    pub fn none() -> Self {
        Preview { guests: "2".into(), children: "0".into(), pets: "0".into(), ..Preview::default() }
    }

    /// True once a quote was made: the page says that nothing was saved.
    pub fn is_priced(&self) -> bool {
        self.quote.is_some()
    }

    /// The stay asked in `form` (kept as typed) and the faults of its fields.
    fn asked(form: &Form) -> (Self, Result<Party, Vec<FieldError>>) {
        let field = |name: &str| form.get(name).trim().to_owned();
        let preview = Preview {
            check_in: field("previewCheckIn"),
            check_out: field("previewCheckOut"),
            guests: field("previewGuests"),
            children: field("previewChildren"),
            pets: field("previewPets"),
            promo_code: field("previewPromoCode"),
            quote: None,
        };
        let mut errors = Vec::new();
        let date = |name: &str, errors: &mut Vec<FieldError>| {
            let d = parse_date(form.get(name).trim());
            if d.is_none() {
                errors.push(FieldError::new(name, "invalid", "pick a date"));
            }
            d
        };
        let (check_in, check_out) = (date("previewCheckIn", &mut errors), date("previewCheckOut", &mut errors));
        let mut counts = [0u32; 3];
        for (i, name) in ["previewGuests", "previewChildren", "previewPets"].into_iter().enumerate() {
            match form.get(name).trim().parse() {
                Ok(n) => counts[i] = n,
                Err(_) => errors.push(FieldError::new(name, "invalid", "must be a whole number")),
            }
        }
        let stay = check_in.zip(check_out).map(|(a, b)| Stay::new(a, b));
        match stay {
            Some(Ok(stay)) if errors.is_empty() => (preview, Ok((stay, counts))),
            Some(Err(e)) => {
                errors.push(FieldError::new("previewCheckOut", "invalid", e.to_string()));
                (preview, Err(errors))
            }
            _ => (preview, Err(errors)),
        }
    }
}

/// Prices the stay `form` asks under `candidate` (the edited property, not
/// stored) with the calendar and promo uses the store holds now; the faults of the stay's
/// fields when it cannot be read.
pub async fn quote<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    candidate: &Property,
    form: &Form,
) -> (Preview, Vec<FieldError>) {
    let (mut preview, asked) = Preview::asked(form);
    let (stay, [guests, children, pets]) = match asked {
        Ok(asked) => asked,
        Err(errors) => return (preview, errors),
    };
    let property = candidate.clone();
    let code = preview.promo_code.clone();
    let priced = blocking(rental, move |r| {
        let promo_code = Some(code.as_str()).filter(|c| !c.is_empty());
        r.preview_quote(&property, &Asked { stay, guests, children, pets, promo_code })
    })
    .await;
    match priced {
        Ok(q) => preview.quote = Some(q),
        Err(p) => return (preview, vec![FieldError::new("previewCheckIn", "invalid", super::explain(&p))]),
    }
    (preview, Vec::new())
}

/// The preview box inside the edit form; its button posts the form as the
/// preview, so it works without script.
pub fn render(preview: &Preview, error: &dyn Fn(&str) -> Markup) -> Markup {
    let input = |id: &str, label: &str, kind: &str, value: &str| {
        html! { div {
            label for=(id) { (label) }
            input id=(id) type=(kind) name=(id) value=(value);
            (error(id))
        } }
    };
    html! {
        section #rules-preview aria-labelledby="preview-title" {
            h2 #preview-title { "Preview a quote" }
            p.muted { "Prices a stay under the settings in this form, saved or not, against today's calendar. Nothing is saved." }
            div.grid2 {
                (input("previewCheckIn", "Check-in", "date", &preview.check_in))
                (input("previewCheckOut", "Check-out", "date", &preview.check_out))
                (input("previewGuests", "Guests", "text", &preview.guests))
                (input("previewChildren", "Of whom children", "text", &preview.children))
                (input("previewPets", "Pets", "text", &preview.pets))
                (input("previewPromoCode", "Promo code", "text", &preview.promo_code))
            }
            p { button.quiet type="submit" name="intent" value="preview" { "Preview with these settings" } }
            @if let Some(q) = &preview.quote { (lines(q)) }
        }
    }
}

/// Every line of the quote, each night's base and price, and the problems in a guest's words.
fn lines(q: &Quote) -> Markup {
    let m = |cents: i64| money(cents, &q.currency);
    let kind = match q.discount_kind {
        Some(DiscountKind::GapFill) => "short gap",
        Some(DiscountKind::LengthOfStay) => "longer stay",
        Some(DiscountKind::EarlyBird) => "early booking",
        Some(DiscountKind::Promo) => "promo code",
        _ => "none",
    };
    html! {
        div #preview-quote role="status" {
            @if q.problems.is_empty() {
                p #preview-verdict { "A guest could book this stay." }
            } @else {
                p #preview-verdict { "A guest could not book this stay:" }
                ul #preview-problems { @for problem in &q.problems { li { (refusal(problem, q, rental_core::Locale::En)) } } }
            }
            table.price { tbody {
                @for n in &q.nightly {
                    tr { td { (day(n.date)) } td { (m(n.base)) @if n.price != n.base { " → " (m(n.price)) } } }
                }
                tr { td { "Accommodation" } td { (m(q.accommodation)) } }
                tr { td { "Discount (" (kind) ")" } td #preview-discount { "−" (m(q.discount)) } }
                tr { td { "Extra guests" } td { (m(q.extra_guest_fee)) } }
                tr { td { "Cleaning fee" } td { (m(q.cleaning_fee)) } }
                tr { td { "Pet fee" } td { (m(q.pet_fee)) } }
                tr { td { "Taxes" } td { (m(q.taxes)) } }
                tr { td { "Tourist tax" } td #preview-tourist-tax { (m(q.tourist_tax)) } }
                tr.total { td { "Total" } td #preview-total { (m(q.total)) } }
            } }
        }
    }
}
