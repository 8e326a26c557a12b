//! The `syncscope check` output contract.
fn main_placeholder() {}
#[test]
fn placeholder() {
    main_placeholder();
}
