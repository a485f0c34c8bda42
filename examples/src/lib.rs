//! Programs that embed `rental-core`; see the `examples` directory beside
//! this file. This library target is empty: the examples are the point.
