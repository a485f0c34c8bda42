//! The values a [`super::PaymentProvider`] takes and returns: requests built by the engine,
//! answers read from the provider, in the engine's words rather than any provider's.

use std::collections::BTreeMap;

/// The metadata key under which a payment records the idempotency key of its movement.
pub const MOVEMENT_KEY: &str = "rental_movement";

/// What the guest's browser needs for the provider's card form.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The publishable (browser-side) key; never a secret.
    pub publishable_key: String,
    /// Where the provider's browser script is loaded from.
    pub js_url: String,
}

impl ClientConfig {
    /// A client config from its parts.
    pub fn new(publishable_key: impl Into<String>, js_url: impl Into<String>) -> Self {
        ClientConfig { publishable_key: publishable_key.into(), js_url: js_url.into() }
    }
}

/// A request to save a guest's card.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CardSetupRequest {
    /// The guest's customer at the provider, when the booking has one already.
    pub customer: Option<String>,
    /// The guest's email, for a new customer.
    pub email: String,
    /// The guest's name, for a new customer.
    pub name: String,
    /// Recorded on the customer and the intent (the booking code, for one).
    pub metadata: BTreeMap<String, String>,
}

impl CardSetupRequest {
    /// A request for a new customer with no metadata.
    pub fn new(email: impl Into<String>, name: impl Into<String>) -> Self {
        CardSetupRequest { customer: None, email: email.into(), name: name.into(), metadata: BTreeMap::new() }
    }
}

/// Where a card-saving intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupState {
    /// Waiting for the guest to enter a card.
    NeedsCard,
    /// The bank wants the guest to authenticate in the card form.
    RequiresAction,
    /// Being processed.
    Processing,
    /// The card is saved: [`CardSetup::card`] names it.
    Saved,
    /// Abandoned or declined; a new setup is needed.
    Canceled,
}

/// A card-saving intent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CardSetup {
    /// The provider's id of the intent.
    pub id: String,
    /// The secret the browser's card form confirms it with (not the provider's secret key).
    pub client_secret: String,
    /// The guest's customer at the provider.
    pub customer: String,
    /// Where it stands.
    pub state: SetupState,
    /// The saved card, once [`SetupState::Saved`].
    pub card: Option<String>,
}

impl CardSetup {
    /// A setup from its parts, with no card yet.
    pub fn new(
        id: impl Into<String>,
        client_secret: impl Into<String>,
        customer: impl Into<String>,
        state: SetupState,
    ) -> Self {
        CardSetup { id: id.into(), client_secret: client_secret.into(), customer: customer.into(), state, card: None }
    }
}

/// Whether the guest is there to answer the bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session {
    /// The guest is on the page: the bank may ask for authentication ([`PaymentState::RequiresAction`]).
    On,
    /// The server charges on its own (a later installment, a deposit): a bank that wants the
    /// guest refuses.
    Off,
}

/// A charge or hold of an amount with a saved card.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChargeRequest {
    /// In the currency's minor unit, more than 0.
    pub amount: i64,
    /// ISO 4217, such as `EUR`.
    pub currency: String,
    /// The guest's customer at the provider.
    pub customer: String,
    /// The saved card.
    pub card: String,
    /// `true`: a hold to capture later; `false`: charged at once.
    pub hold: bool,
    /// Whether the guest is present.
    pub session: Session,
    /// Fixed per movement: a retry with the same key never charges twice.
    pub idempotency_key: String,
    /// Recorded on the payment (the booking code, the movement); [`MOVEMENT_KEY`] is added.
    pub metadata: BTreeMap<String, String>,
}

impl ChargeRequest {
    /// A charge at once, off-session, with no metadata.
    pub fn new(
        amount: i64,
        currency: impl Into<String>,
        customer: impl Into<String>,
        card: impl Into<String>,
        idempotency_key: impl Into<String>,
    ) -> Self {
        ChargeRequest {
            amount,
            currency: currency.into(),
            customer: customer.into(),
            card: card.into(),
            hold: false,
            session: Session::Off,
            idempotency_key: idempotency_key.into(),
            metadata: BTreeMap::new(),
        }
    }
}

/// Where a payment stands, as the engine acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PaymentState {
    /// Being confirmed; not yet known.
    Processing,
    /// The bank wants the guest to authenticate ([`Payment::client_secret`] lets the page ask).
    RequiresAction,
    /// A hold: the amount is reserved on the card, to capture or release.
    Authorized,
    /// Charged (a hold, captured).
    Succeeded,
    /// The bank refused ([`Payment::error`] says why); nothing moved.
    Failed,
    /// Released or abandoned; nothing moved.
    Canceled,
}

/// A payment (a charge or a hold) at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Payment {
    /// The provider's id.
    pub id: String,
    /// Where it stands.
    pub state: PaymentState,
    /// The amount asked for.
    pub amount: i64,
    /// What was charged (after a capture, perhaps less than `amount`).
    pub amount_received: i64,
    /// ISO 4217, upper case.
    pub currency: String,
    /// The customer it was made for.
    pub customer: Option<String>,
    /// For the guest's page to finish an authentication; not a provider secret key.
    pub client_secret: Option<String>,
    /// The bank's or provider's reason for a refusal.
    pub error: Option<String>,
    /// What the request recorded, [`MOVEMENT_KEY`] included.
    pub metadata: BTreeMap<String, String>,
}

impl Payment {
    /// A payment from its parts; `amount_received` is `amount` when it succeeded, else 0.
    pub fn new(id: impl Into<String>, state: PaymentState, amount: i64, currency: &str) -> Self {
        Payment {
            id: id.into(),
            state,
            amount,
            amount_received: if state == PaymentState::Succeeded { amount } else { 0 },
            currency: currency.to_ascii_uppercase(),
            customer: None,
            client_secret: None,
            error: None,
            metadata: BTreeMap::new(),
        }
    }

    /// The idempotency key of the movement it was made for, from its metadata.
    pub fn movement_key(&self) -> Option<&str> {
        self.metadata.get(MOVEMENT_KEY).map(String::as_str)
    }
}

/// A refund of part or all of a payment.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RefundRequest {
    /// The payment to refund.
    pub payment: String,
    /// In the payment's currency's minor unit, more than 0.
    pub amount: i64,
    /// Fixed per refund movement.
    pub idempotency_key: String,
    /// Recorded on the refund; [`MOVEMENT_KEY`] is added.
    pub metadata: BTreeMap<String, String>,
}

impl RefundRequest {
    /// A refund request with no metadata.
    pub fn new(payment: impl Into<String>, amount: i64, idempotency_key: impl Into<String>) -> Self {
        RefundRequest {
            payment: payment.into(),
            amount,
            idempotency_key: idempotency_key.into(),
            metadata: BTreeMap::new(),
        }
    }
}

/// Where a refund stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefundState {
    /// Sent to the bank; it will succeed or fail later.
    Pending,
    /// Done.
    Succeeded,
    /// The bank refused it.
    Failed,
}

/// A refund at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    /// The provider's id.
    pub id: String,
    /// The amount refunded.
    pub amount: i64,
    /// Where it stands.
    pub state: RefundState,
}

/// A webhook request's headers, for [`super::PaymentProvider::parse_webhook`].
#[derive(Debug, Clone, Copy)]
pub struct WebhookHeaders<'a>(pub &'a [(&'a str, &'a str)]);

impl WebhookHeaders<'_> {
    /// The first value of header `name` (any case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
}

/// A verified webhook: which event, and which payment or setup it is about. The server
/// fetches that object before acting; the event's own body is not believed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookEvent {
    /// The provider's event id, unique: a replay carries the same.
    pub id: String,
    /// The provider's event type (`payment_intent.succeeded`), for the log.
    pub kind: String,
    /// The payment the event is about, if it is about one.
    pub payment: Option<String>,
    /// The card-saving intent the event is about, if it is about one.
    pub card_setup: Option<String>,
}

impl WebhookEvent {
    /// An event about nothing the engine acts on.
    pub fn new(id: impl Into<String>, kind: impl Into<String>) -> Self {
        WebhookEvent { id: id.into(), kind: kind.into(), payment: None, card_setup: None }
    }
}
