//! The words of guest messages, below every area that names them: the kinds,
//! the lead times, and the template language with its built-in wording and checks.

mod builtin_de;
mod builtin_en;
pub(crate) mod compiled;
pub mod kind;
pub mod lead;
pub(crate) mod sample;
pub mod template;

pub use self::kind::MessageKind;
pub use self::lead::Lead;
