"""The symbol index: the definitions of a repository's code (functions, classes, methods, types, constants), each
with its file and line range, read with tree-sitter grammars.

Only what a page can name from outside is indexed: top-level definitions (JavaScript's CommonJS exports and
prototype methods included) and the members of classes, structs, enums, impls, traits, interfaces, namespaces and
modules (methods, fields, enum members), qualified by their container (`TaskQueue.drain`, `Queue.Drain` for a Go
method on `*Queue`). Bodies of functions are not entered: a local variable is nobody's API. A file of a language without
a grammar here contributes its path only (the caller keeps the paths). Pure: bytes in, definitions out.

The package's modules: `walk` (a definition, the grammars and what every language's walk shares), one per language
family (`python`, `javascript` for JavaScript and TypeScript, `go`, `rust`, `java`), and `index` (a file's symbols
from one parse, its string values, and the index of many files).
"""

from .index import MAX_LITERAL, FileSymbols, SymbolIndex, definitions, does_not_parse, read_symbols
from .walk import LANGUAGE_OF_SUFFIX, MAX_INDEXED_BYTES, Definition, language_of

__all__ = [
    "LANGUAGE_OF_SUFFIX",
    "MAX_INDEXED_BYTES",
    "MAX_LITERAL",
    "Definition",
    "FileSymbols",
    "SymbolIndex",
    "definitions",
    "does_not_parse",
    "language_of",
    "read_symbols",
]
