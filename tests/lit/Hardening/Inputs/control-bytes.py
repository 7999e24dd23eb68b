# Writes a model whose erroneous line holds control bytes (a terminal
# escape sequence, a NUL-free BEL and a DEL) in a trailing comment:
#   control-bytes.py OUT
import sys

line = "  %r = mix.relu %x : (tensor<4xf32>) -> tensor<3xf32> // \x1b[31mred\x07\x7f!"
with open(sys.argv[1], "w", encoding="latin-1") as f:
    f.write("mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<3xf32> {\n")
    f.write(line + "\n")
    f.write("  mix.return %r : tensor<3xf32>\n}\n")
