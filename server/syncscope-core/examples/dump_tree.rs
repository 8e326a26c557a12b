//! Prints the tree-sitter-cuda syntax tree of a file: a developer aid for
//! writing front-end code.
//! `cargo run -p syncscope-core --example dump_tree -- FILE.cu`
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump_tree FILE");
    let source = std::fs::read(&path).expect("readable file");
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .expect("grammar loads");
    let tree = parser.parse(&source, None).expect("parse");
    print(tree.root_node(), &source, 0, None);
}

fn print(node: tree_sitter::Node, src: &[u8], depth: usize, field: Option<&str>) {
    let text = node.utf8_text(src).unwrap_or("?");
    let short: String = text.chars().take(40).collect::<String>().replace('\n', " ");
    println!(
        "{}{}{}{} [{}] {:?}",
        "  ".repeat(depth),
        field.map(|f| format!("{f}: ")).unwrap_or_default(),
        if node.is_named() { "" } else { "'" },
        node.kind(),
        node.start_position().row + 1,
        if node.child_count() == 0 {
            short
        } else {
            String::new()
        }
    );
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        print(child, src, depth + 1, node.field_name_for_child(i as u32));
    }
}
