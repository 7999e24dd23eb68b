"""Writes an LSP session (the --lit-test form) that opens a model nested
5,000 brackets deep, hovers in it, and shuts down."""
import json

text = "mix.network @n precision(f32) () -> () {\n%x = " + "(" * 5000 + "\n}\n"
uri = "test:///deep.mlir"
messages = [
    {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": uri, "languageId": "mlir",
                                 "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": uri},
                "position": {"line": 1, "character": 3}}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
print("\n// -----\n".join(json.dumps(m) for m in messages))
