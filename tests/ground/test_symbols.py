"""The symbol index on real code (tests/data/code, third-party source kept byte for byte): every definition a page
can name, with its container and its exact lines, checked by hand against the files, in each language indexed.

Lines are 1-based and inclusive: a definition starts at its own first line (with `export`, without decorators,
annotations, attributes or doc comments) and ends at its last. Members are qualified by their container: a class,
an interface, an impl's type, a Go receiver, a namespace or a module.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.ground.symbols import MAX_INDEXED_BYTES, Definition, SymbolIndex, definitions, language_of

DATA = Path(__file__).resolve().parents[1] / "data" / "code"


def read(relative: str) -> list[Definition]:
    return definitions(relative, (DATA / relative).read_bytes())


def D(path: str, qualified: str, kind: str, start: int, end: int | None = None) -> Definition:
    return Definition(qualified.rsplit(".", 1)[-1], qualified, kind, path, start, start if end is None else end)


def expect(path: str, *rows: tuple[str, str, int] | tuple[str, str, int, int]) -> list[Definition]:
    return [D(path, *row) for row in rows]


# Definitions of each file, checked by hand (a selection for large files: functions, classes, methods, constants,
# exported names, nested ones; the test asserts each is found exactly as written, and only once).
SOME: dict[str, list[Definition]] = {
    "python/connections.py": expect(
        "python/connections.py",
        ("logger", "variable", 20),
        ("RedisSettings", "class", 24, 80),  # `@dataclass` on line 23 is not part of it
        ("RedisSettings.host", "constant", 31),  # a dataclass field: a class attribute
        ("RedisSettings.retry_on_error", "constant", 53),
        ("RedisSettings.from_dsn", "method", 57, 77),  # `@classmethod` on line 56 is not part of it
        ("RedisSettings.__repr__", "method", 79, 80),
        ("ArqRedis", "class", 89, 217),
        ("ArqRedis.__init__", "method", 102, 117),
        ("ArqRedis.enqueue_job", "method", 119, 181),
        ("ArqRedis.queued_jobs", "method", 210, 217),
        ("create_pool", "function", 220, 299),
        ("log_redis_info", "function", 302, 316),  # the file's last line
    ),
    "python/sansio.py": expect(
        "python/sansio.py",
        ("_parse_content_type", "function", 37, 51),
        ("Event", "class", 97, 155),
        ("Event.data", "constant", 100),  # annotated, no value
        ("Event.from_http", "method", 116, 155),
        ("RateLimit.__bool__", "method", 266, 272),
        ("RateLimit.from_http", "method", 279, 292),
        ("_link_re", "variable", 295, 297),
        ("DOMAIN", "constant", 397),
        ("format_url", "function", 400, 424),
    ),
    "javascript/component.js": expect(
        "javascript/component.js",
        ("BaseComponent", "function", 20, 24),
        ("BaseComponent.setState", "method", 35, 60),  # `BaseComponent.prototype.setState = function ...`
        ("BaseComponent.forceUpdate", "method", 68, 77),
        ("BaseComponent.render", "method", 89),  # `... .prototype.render = Fragment;`
        ("getDomSibling", "function", 95, 123),
        ("renderComponent", "function", 129, 163),
        ("rerenderQueue", "constant", 184),
        ("prevDebounce", "variable", 195),  # `let prevDebounce,\n rerenderCount = 0;`: each its own line
        ("rerenderCount", "variable", 196),
        ("depthSort", "function", 223),  # an arrow function in a const
        ("process", "function", 226, 254),
    ),
    "javascript/utils.js": expect(
        "javascript/utils.js",
        ("etag", "variable", 17),  # `var etag = require('etag')`
        ("methods", "variable", 29),  # CommonJS exports: `exports.methods = ...`
        ("etag", "variable", 40),  # `exports.etag = createETagGenerator(...)`
        ("normalizeType", "function", 61, 65),
        ("normalizeTypes", "function", 75, 77),
        ("acceptParams", "function", 89, 120),
        ("compileETag", "function", 130, 152),
        ("compileQueryParser", "function", 162, 184),
        ("setCharset", "function", 225, 238),
        ("createETagGenerator", "function", 249, 257),
        ("parseExtendedQueryString", "function", 267, 271),
    ),
    "javascript/validator.js": expect(
        "javascript/validator.js",
        ("validators", "constant", 6),
        ("deprecatedWarnings", "constant", 15),
        ("validators.transitional", "function", 26, 53),  # a function stored on an object of the module
        ("validators.spelling", "function", 55, 61),
        ("assertOptions", "function", 73, 94),
    ),
    "javascript/adapters.js": expect(
        "javascript/adapters.js",
        ("knownAdapters", "constant", 7, 11),
        ("renderReason", "function", 24),
        ("isResolvedHandle", "function", 26),
        ("getAdapter", "function", 29, 77),  # a member of `export default {...}`
        ("adapters", "variable", 78),
    ),
    "javascript/GithubAPI.js": expect(
        "javascript/GithubAPI.js",
        ("exec", "constant", 7),
        ("GithubAPI", "class", 9, 120),  # `export default class`
        ("GithubAPI.constructor", "method", 10, 24),
        ("GithubAPI.createComment", "method", 26, 28),
        ("GithubAPI.getTagRef", "method", 102, 107),  # static async
        ("GithubAPI.normalizeTag", "method", 117, 119),
    ),
    "typescript/ZodError.ts": expect(
        "typescript/ZodError.ts",
        ("ZodIssueCode", "constant", 15, 32),  # the value ...
        ("ZodIssueCode", "type", 34),  # ... and the type of the same name
        ("ZodIssueBase", "type", 36, 39),
        ("quotelessJson", "function", 175, 178),
        ("ZodError", "class", 194, 326),
        ("ZodError.issues", "variable", 195),  # a class field
        ("ZodError.errors", "method", 197, 199),  # a getter
        ("ZodError.constructor", "method", 201, 213),
        ("ZodError.format", "method", 215),  # two overload signatures and the implementation
        ("ZodError.format", "method", 216),
        ("ZodError.format", "method", 217, 274),
        ("ZodError.create", "method", 276, 279),  # `static create = (issues) => {...}`
        ("ZodError.assert", "method", 281, 285),
        ("ZodError.addIssue", "method", 298, 300),  # an arrow function in a field
        ("ZodError.flatten", "method", 308, 321),
        ("ZodErrorMap", "type", 340),
    ),
    "typescript/ref.ts": expect(
        "typescript/ref.ts",
        ("isRef", "function", 46),  # an overload signature ...
        ("isRef", "function", 48, 50),  # ... and the implementation
        ("ref", "function", 59, 61),
        ("ref", "function", 62),
        ("ref", "function", 64, 66),
        ("createRef", "function", 104, 109),  # not exported
        ("RefImpl", "class", 114, 165),
        ("RefImpl._value", "variable", 115),
        ("RefImpl._rawValue", "variable", 116),  # `private`
        ("RefImpl.dep", "variable", 118),
        ("RefImpl.constructor", "method", 123, 127),
        ("RefImpl.value", "method", 129, 140),  # get
        ("RefImpl.value", "method", 142, 164),  # set
        ("toRef", "function", 500, 514),
    ),
    "typescript/util.ts": expect(
        "typescript/util.ts",
        ("util", "module", 1, 79),  # `export namespace util`
        ("util.AssertEqual", "type", 2),  # not exported from the namespace, still its member
        ("util.assertEqual", "function", 5),
        ("util.assertNever", "function", 7, 9),
        ("util.objectKeys", "constant", 39, 50),
        ("objectUtil", "module", 81, 127),
        ("objectUtil.mergeShapes", "function", 113, 118),
        ("ZodParsedType", "constant", 129, 171),
        ("ZodParsedType", "type", 173),
        ("getParsedType", "function", 175, 224),
    ),
    "typescript/mitt.ts": expect(
        "typescript/mitt.ts",
        ("EventType", "type", 1),
        ("WildcardHandler", "type", 6, 9),
        ("Emitter", "type", 23, 39),
        ("Emitter.all", "variable", 24),  # an interface's members
        ("Emitter.on", "method", 26),
        ("Emitter.on", "method", 27),
        ("Emitter.off", "method", 29, 32),
        ("Emitter.emit", "method", 36, 38),
        ("mitt", "function", 46, 123),  # `export default function`
    ),
    "go/groupcache.go": expect(
        "go/groupcache.go",
        ("Getter", "type", 41, 49),
        ("Getter.Get", "method", 48),  # an interface's method
        ("GetterFunc", "type", 52),
        ("GetterFunc.Get", "method", 54, 56),  # a value receiver
        ("mu", "variable", 59),  # the specs of a `var (...)` block, each its own lines
        ("groups", "variable", 60),
        ("initPeerServer", "variable", 63),
        ("GetGroup", "function", 68, 73),
        ("newGroupHook", "variable", 114),  # a lone `var`: the whole declaration
        ("Group", "type", 142, 178),
        ("Group.hotCache", "variable", 163),
        ("Group.Get", "method", 212, 238),  # a pointer receiver
        ("CacheType", "type", 372),
        ("MainCache", "constant", 377),  # one spec of a `const (...)` block: its own line
        ("HotCache", "constant", 382),
        ("Group.CacheStats", "method", 386, 395),
        ("cache.removeOldest", "method", 451, 457),
        ("AtomicInt.Add", "method", 482, 484),
        ("CacheStats", "type", 496, 502),
        ("CacheStats.Hits", "variable", 500),  # a struct's fields
    ),
    "go/set.go": expect(
        "go/set.go",
        ("Set", "type", 43, 224),  # a generic interface
        ("Set.Add", "method", 46),
        ("Set.Append", "method", 50),
        ("Set.UnmarshalBSONValue", "method", 223),
        ("NewSet", "function", 228, 232),
        ("Elements", "function", 280, 286),
    ),
    "go/threadunsafe.go": expect(
        "go/threadunsafe.go",
        ("threadUnsafeSet", "type", 37),
        ("newThreadUnsafeSet", "function", 42, 45),
        ("threadUnsafeSet.Add", "method", 52, 56),  # `func (s *threadUnsafeSet[T]) Add`: generic pointer receiver
        ("threadUnsafeSet.add", "method", 59, 61),
        ("threadUnsafeSet.MarshalJSON", "method", 373, 375),  # generic value receiver
        ("threadUnsafeSet.UnmarshalBSONValue", "method", 396, 409),
    ),
    "rust/context.rs": expect(
        "rust/context.rs",
        ("ext", "module", 9, 40),
        ("ext.StdError", "type", 12, 16),  # a trait in a module
        ("ext.StdError.ext_context", "method", 13, 15),
        ("ext.E.ext_context", "method", 23, 29),  # `impl<E> StdError for E` (line 18's attribute is not part of it)
        ("ext.Error.ext_context", "method", 33, 38),
        ("Result.context", "method", 46, 56),  # `impl<T, E> Context<T, E> for Result<T, E>`
        ("Result.with_context", "method", 58, 67),
        ("Option.context", "method", 91, 101),
        ("ContextError.fmt", "method", 120, 125),  # impl Debug ...
        ("ContextError.fmt", "method", 132, 134),  # ... and impl Display
        ("Quoted", "type", 166),
        ("private", "module", 186, 193),
        ("private.Sealed", "type", 189),
    ),
    "rust/lib.rs": expect(
        "rust/lib.rs",
        ("u128_ext", "module", 54),  # `mod u128_ext;`
        ("Buffer", "type", 72, 74),
        ("Buffer.bytes", "variable", 73),  # a struct's field
        ("Buffer.default", "method", 78, 80),
        ("Buffer.new", "method", 98, 101),  # lines 94-97 (doc comment, attributes) are not part of it
        ("Buffer.format", "method", 106, 113),
        ("Integer", "type", 119, 123),
        ("Integer.MAX_STR_LEN", "constant", 122),
        ("private.Sealed", "type", 128, 132),
        ("private.Sealed.write", "method", 131),
        ("impl_Integer", "macro", 135, 183),
        ("DecimalPairs", "type", 219),
        ("DECIMAL_PAIRS", "constant", 222, 228),  # a static
        ("divmod100", "function", 231, 237),
        ("slice_buffer_to_str", "function", 247, 253),  # `unsafe fn`
        ("u128.fmt", "method", 336, 403),  # `impl Unsigned for u128`
    ),
    "java/FieldNamingPolicy.java": expect(
        "java/FieldNamingPolicy.java",
        ("FieldNamingPolicy", "class", 31, 213),
        ("FieldNamingPolicy.IDENTITY", "constant", 34, 39),  # enum constants, with their bodies
        ("FieldNamingPolicy.UPPER_CAMEL_CASE", "constant", 52, 57),
        ("FieldNamingPolicy.LOWER_CASE_WITH_DOTS", "constant", 168, 173),
        ("FieldNamingPolicy.separateCamelCase", "method", 179, 189),
        ("FieldNamingPolicy.upperCaseFirstLetter", "method", 192, 212),
    ),
    "java/ReflectionAccessFilter.java": expect(
        "java/ReflectionAccessFilter.java",
        ("ReflectionAccessFilter", "class", 45, 228),
        ("ReflectionAccessFilter.FilterResult", "class", 51, 90),  # an enum nested in an interface
        ("ReflectionAccessFilter.FilterResult.ALLOW", "constant", 58),
        ("ReflectionAccessFilter.FilterResult.BLOCK_ALL", "constant", 89),
        ("ReflectionAccessFilter.BLOCK_INACCESSIBLE_JAVA", "constant", 112, 125),  # an interface's field is constant
        ("ReflectionAccessFilter.BLOCK_ALL_PLATFORM", "constant", 206, 219),
        ("ReflectionAccessFilter.check", "method", 227),
    ),
    "java/JsonPrimitive.java": expect(
        "java/JsonPrimitive.java",
        ("JsonPrimitive", "class", 35, 357),
        ("JsonPrimitive.value", "variable", 37),  # `private final`, not static: a field, not a constant
        ("JsonPrimitive.JsonPrimitive", "method", 48, 50),  # constructors, after their annotations
        ("JsonPrimitive.JsonPrimitive", "method", 58, 60),
        ("JsonPrimitive.JsonPrimitive", "method", 68, 70),
        ("JsonPrimitive.JsonPrimitive", "method", 82, 86),
        ("JsonPrimitive.deepCopy", "method", 94, 96),
        ("JsonPrimitive.isIntegral", "method", 346, 356),
    ),
    "java/Java17RecordTest.java": expect(
        "java/Java17RecordTest.java",
        ("Java17RecordTest", "class", 47, 484),  # `@RunWith(...)` on line 46 is not part of it
        ("Java17RecordTest.gson", "variable", 48),
        ("Java17RecordTest.testFirstNameIsChosenForSerialization", "method", 51, 55),
        ("Java17RecordTest.RecordWithCustomNames", "class", 81, 86),  # records
        ("Java17RecordTest.RecordWithStaticField", "class", 352, 355),
        ("Java17RecordTest.RecordWithStaticField.s", "variable", 354),  # static, not final
        ("Java17RecordTest.PrivateRecord", "class", 462),
        ("Java17RecordTest.PublicRecord", "class", 464),
        ("Java17RecordTest.testRecordBaseClass", "method", 471, 483),
    ),
}

# Small files, whole: every definition, in the order it stands, and nothing else.
ALL: dict[str, list[Definition]] = {
    "javascript/create-element.js": expect(
        "javascript/create-element.js",
        ("vnodeId", "variable", 5),
        ("createElement", "function", 16, 33),
        ("cloneElement", "function", 44, 68),
        ("createVNode", "function", 82, 106),
        ("createRef", "function", 108, 110),
        ("Fragment", "function", 112, 114),
        ("isValidElement", "function", 121, 122),
    ),
    "javascript/express.js": expect(
        "javascript/express.js",
        ("bodyParser", "variable", 15),
        ("EventEmitter", "variable", 16),
        ("mixin", "variable", 17),
        ("proto", "variable", 18),
        ("Router", "variable", 19),
        ("req", "variable", 20),
        ("res", "variable", 21),
        # `exports = module.exports = createApplication;` exports what is defined below, defines nothing
        ("createApplication", "function", 36, 56),
        ("application", "variable", 62),
        ("request", "variable", 63),
        ("response", "variable", 64),
        ("Route", "variable", 70),
        ("Router", "variable", 71),
        ("json", "variable", 77),
        ("raw", "variable", 78),
        ("static", "variable", 79),
        ("text", "variable", 80),
        ("urlencoded", "variable", 81),
    ),
    "javascript/server.js": expect(
        "javascript/server.js",
        ("renderToString", "variable", 2),
        ("renderToReadableStream", "variable", 12),
        ("renderToPipeableStream", "variable", 21),
        # `module.exports = {...}`: `renderToString: renderToString` exports a name defined above; this one is new
        ("renderToStaticMarkup", "variable", 33),
    ),
    "typescript/constants.ts": expect(
        "typescript/constants.ts",
        ("TrackOpTypes", "type", 4, 8),
        ("TrackOpTypes.GET", "constant", 5),
        ("TrackOpTypes.HAS", "constant", 6),
        ("TrackOpTypes.ITERATE", "constant", 7),
        ("TriggerOpTypes", "type", 10, 15),
        ("TriggerOpTypes.SET", "constant", 11),
        ("TriggerOpTypes.ADD", "constant", 12),
        ("TriggerOpTypes.DELETE", "constant", 13),
        ("TriggerOpTypes.CLEAR", "constant", 14),
        ("ReactiveFlags", "type", 17, 24),
        ("ReactiveFlags.SKIP", "constant", 18),
        ("ReactiveFlags.IS_REACTIVE", "constant", 19),
        ("ReactiveFlags.IS_READONLY", "constant", 20),
        ("ReactiveFlags.IS_SHALLOW", "constant", 21),
        ("ReactiveFlags.RAW", "constant", 22),
        ("ReactiveFlags.IS_REF", "constant", 23),
    ),
    "typescript/heading.tsx": expect(
        "typescript/heading.tsx",
        ("Types", "type", 7),
        ("HeadingProps", "type", 8, 10),
        ("Heading", "function", 12, 48),  # JSX inside does not disturb the walk
    ),
    "typescript/tabs.tsx": expect(
        "typescript/tabs.tsx",
        ("ChildProps", "type", 6, 9),
        ("ChildProps.title", "variable", 7),
        ("ChildProps.children", "variable", 8),
        ("Tabs", "function", 11, 59),  # `export { Tabs, Tab }` re-exports, defines nothing
    ),
    "go/lru.go": expect(
        "go/lru.go",
        ("Cache", "type", 23, 34),
        ("Cache.MaxEntries", "variable", 26),
        ("Cache.OnEvicted", "variable", 30),
        ("Cache.ll", "variable", 32),
        ("Cache.cache", "variable", 33),
        ("Key", "type", 37),
        ("entry", "type", 39, 42),
        ("entry.key", "variable", 40),
        ("entry.value", "variable", 41),
        ("New", "function", 47, 53),
        ("Cache.Add", "method", 56, 71),
        ("Cache.Get", "method", 74, 83),
        ("Cache.Remove", "method", 86, 93),
        ("Cache.RemoveOldest", "method", 96, 104),
        ("Cache.removeElement", "method", 106, 113),
        ("Cache.Len", "method", 116, 121),
        ("Cache.Clear", "method", 124, 133),
    ),
    "rust/chain.rs": expect(
        "rust/chain.rs",
        ("Chain", "type", 11, 13),  # line 10's `#[cfg(...)]` is not part of it
        ("Chain.state", "variable", 12),
        ("ChainState", "type", 16, 24),
        ("ChainState.Linked", "constant", 17, 19),  # enum variants
        ("ChainState.Buffered", "constant", 21, 23),
        ("Chain.new", "method", 28, 32),  # `impl<'a> Chain<'a>`
        ("Chain.Item", "type", 36),  # `impl<'a> Iterator for Chain<'a>`
        ("Chain.next", "method", 38, 48),
        ("Chain.size_hint", "method", 50, 53),
        ("Chain.next_back", "method", 58, 73),  # `impl DoubleEndedIterator for Chain<'_>`
        ("Chain.len", "method", 77, 90),
        ("Chain.default", "method", 95, 101),
    ),
    "rust/macros.rs": expect(
        "rust/macros.rs",
        ("bail", "macro", 58, 68),  # after its doc comment and `#[macro_export]`
        ("__ensure", "macro", 70, 124),
        ("anyhow", "macro", 204, 223),
        ("__anyhow", "macro", 230, 245),
    ),
    "java/JsonNull.java": expect(
        "java/JsonNull.java",
        ("JsonNull", "class", 26, 65),
        ("JsonNull.INSTANCE", "constant", 32),  # static final
        ("JsonNull.JsonNull", "method", 40, 42),  # `@Deprecated` on line 39 is not part of it
        ("JsonNull.deepCopy", "method", 50, 52),
        ("JsonNull.hashCode", "method", 56, 58),
        ("JsonNull.equals", "method", 62, 64),
    ),
    "java/SerializedName.java": expect(
        "java/SerializedName.java",
        ("SerializedName", "class", 86, 101),  # after three annotations (lines 83 to 85)
        ("SerializedName.value", "method", 93),  # an annotation's elements
        ("SerializedName.alternate", "method", 100),
    ),
}

FILES = sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if language_of(p.name) is not None)


def test_every_data_file_says_where_it_came_from() -> None:
    """tests/data/code/README.md names each file's repository, path, commit or release and licence."""
    rows = [line.split("|") for line in (DATA / "README.md").read_text().splitlines() if line.startswith("| `")]
    listed = {row[1].strip().strip("`") for row in rows}
    assert listed == set(FILES)
    assert all(len(row) == 7 and all(cell.strip() for cell in row[1:6]) for row in rows)


def test_every_data_file_is_tested() -> None:
    assert set(FILES) == set(SOME) | set(ALL)
    assert {language_of(path) for path in FILES} == {"python", "javascript", "typescript", "tsx", "go", "rust", "java"}


@pytest.mark.parametrize("path", sorted(SOME))
def test_definitions_of_a_file(path: str) -> None:
    found = read(path)
    missing = [d for d in SOME[path] if d not in found]
    assert missing == []
    for d in SOME[path]:
        assert found.count(d) == 1, d


@pytest.mark.parametrize("path", sorted(ALL))
def test_every_definition_of_a_small_file(path: str) -> None:
    assert read(path) == ALL[path]


@pytest.mark.parametrize("path", FILES)
def test_each_definition_lies_within_its_file_and_in_order(path: str) -> None:
    found = read(path)
    lines = (DATA / path).read_bytes().count(b"\n") + 1
    assert found
    for d in found:
        assert d.path == path
        assert 1 <= d.start <= d.end <= lines, d
        assert d.name and d.qualified.endswith(d.name) and d.name.isidentifier(), d
    tops = [d.start for d in found if d.qualified == d.name]
    assert tops == sorted(tops)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("python/connections.py", "pool_factory"),  # a function nested in create_pool
        ("python/connections.py", "redis_version"),  # a local of log_redis_info
        ("javascript/utils.js", "generateETag"),  # the function createETagGenerator returns
        ("javascript/validator.js", "formatMessage"),  # nested in validators.transitional
        ("javascript/validator.js", "validator"),  # `validators[type] = function validator` inside a callback
        ("javascript/create-element.js", "normalizedProps"),  # a local of createElement
        ("typescript/mitt.ts", "GenericEventHandler"),  # a type alias inside mitt()
        ("typescript/mitt.ts", "handlers"),
        ("rust/lib.rs", "EXP"),  # a const inside divmod100
        ("java/Java17RecordTest.java", "LocalRecord"),  # a record declared inside a test method
        ("java/ReflectionAccessFilter.java", "toString"),  # a method of an anonymous class in a field's initializer
        ("java/FieldNamingPolicy.java", "translateName"),  # the methods of each enum constant's body
        ("go/threadunsafe.go", "prevLen"),  # a local of threadUnsafeSet.Add
    ],
)
def test_nothing_inside_a_body_is_indexed(path: str, name: str) -> None:
    assert name in (DATA / path).read_text(encoding="utf-8")
    assert [d for d in read(path) if d.name == name] == []


def test_no_names_that_are_not_names() -> None:
    found = [d for path in FILES for d in read(path)]
    assert "_" not in {d.name for d in found}  # Go's blank identifier: go/threadunsafe.go:40, go/groupcache.go:170
    assert not [d for d in found if "[" in d.qualified or "#" in d.qualified]  # computed and private keys


def test_same_name_in_several_containers() -> None:
    index = SymbolIndex.of_files({path: (DATA / path).read_bytes() for path in FILES})
    assert [d.qualified for d in index.named("from_http")] == ["Event.from_http", "RateLimit.from_http"]
    assert [(d.path, d.start) for d in index.qualified("ContextError.fmt")] == [
        ("rust/context.rs", 120),
        ("rust/context.rs", 132),
    ]
    assert {d.path for d in index.named("Add")} == {"go/groupcache.go", "go/lru.go", "go/set.go", "go/threadunsafe.go"}


# -- languages, sizes and inputs that are not code -------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/q.py", "python"),
        ("stubs/q.pyi", "python"),
        ("SRC/Q.PY", "python"),  # suffixes are matched without case
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("types/a.d.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("a.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("A.java", "java"),
        ("README.md", None),
        ("Makefile", None),
        ("src/a.c", None),
        ("a.py.orig", None),
        ("pkg.py/README", None),  # a dot in a folder's name is not a suffix
        ("", None),
    ],
)
def test_language_of(path: str, language: str | None) -> None:
    assert language_of(path) == language


def test_a_file_without_a_grammar_gives_no_definitions() -> None:
    assert definitions("README.md", b"# Title\n\ndef not_code():\n    pass\n") == []
    assert definitions("Makefile", b"build:\n\tcc -o x x.c\n") == []
    assert definitions("src/x.c", b"int main(void) { return 0; }\n") == []
    index = SymbolIndex.of_files({"README.md": b"def f(): pass\n", "q.py": b"def f():\n    pass\n"})
    assert [(d.path, d.qualified) for d in index.definitions] == [("q.py", "f")]


def test_an_empty_file() -> None:
    for path in ("e.py", "e.js", "e.ts", "e.tsx", "e.go", "e.rs", "e.java"):
        assert definitions(path, b"") == []


def test_binary_input_gives_nothing() -> None:
    assert definitions("blob.py", b"def f():\n    pass\n\0\x01\x02") == []
    assert definitions("blob.go", bytes(range(256)) * 4) == []


def test_oversized_input_gives_nothing() -> None:
    body = b"def f():\n    pass\n"
    padding = b"#" * (MAX_INDEXED_BYTES - len(body)) + b"\n"
    assert definitions("big.py", body + padding[:-2] + b"\n") != []  # exactly the limit
    assert definitions("big.py", body + padding) == []  # one byte more


def test_non_utf8_input_is_read_as_far_as_it_goes() -> None:
    latin1 = "# café, naïve: Latin-1, not UTF-8\ndef drain(queue):\n    return queue\n\nLIMIT = 3\n".encode("latin-1")
    assert definitions("legacy.py", latin1) == [
        D("legacy.py", "drain", "function", 2, 3),
        D("legacy.py", "LIMIT", "constant", 5),
    ]
    weird_name = b"def caf\xe9():\n    pass\n"  # not UTF-8 inside a name: read, never a crash
    assert all(d.path == "weird.py" for d in definitions("weird.py", weird_name))


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("bad.py", b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    x = 1\n", ["ok", "Fine"]),
        ("bad.js", b"function ok() { return 1 }\nfunction broken( {\nclass Fine { m() {} }\n", ["ok"]),
        ("bad.ts", b"export interface Ok { a: string }\nexport function (\n", ["Ok", "Ok.a"]),
        ("bad.go", b"package p\n\nfunc Ok() {}\n\nfunc (\n", ["Ok"]),
        ("bad.rs", b"fn ok() {}\nimpl {\n", ["ok"]),
        ("bad.java", b"class Ok { void m() {} }\nclass {\n", ["Ok", "Ok.m"]),
        ("junk.py", bytes(range(1, 256)) * 3, []),
    ],
)
def test_a_file_that_does_not_parse_does_not_crash(path: str, source: bytes, expected: list[str]) -> None:
    """tree-sitter recovers around the error: what stands before it (at least) is still found."""
    found = definitions(path, source)
    assert set(expected) <= {d.qualified for d in found}
    lines = source.count(b"\n") + 1
    assert all(1 <= d.start <= d.end <= lines for d in found)


# -- the index -----------------------------------------------------------------------------------------------


def test_index_by_name_qualified_name_and_file() -> None:
    files = {
        "src/b.py": b"class TaskQueue:\n    def drain(self):\n        pass\n",
        "src/a.py": b"def drain():\n    pass\n",
        "docs/x.md": b"# drain\n",
    }
    index = SymbolIndex.of_files(files)
    assert len(index) == 3
    assert [(d.path, d.qualified) for d in index.definitions] == [
        ("src/a.py", "drain"),  # files in path order
        ("src/b.py", "TaskQueue"),
        ("src/b.py", "TaskQueue.drain"),
    ]
    assert [d.qualified for d in index.named("drain")] == ["drain", "TaskQueue.drain"]
    assert index.qualified("TaskQueue.drain") == [D("src/b.py", "TaskQueue.drain", "method", 2, 3)]
    assert index.qualified("drain") == [D("src/a.py", "drain", "function", 1, 2)]
    assert index.named("nothing") == [] and index.qualified("TaskQueue.nothing") == []
    assert [d.qualified for d in index.in_file("src/b.py")] == ["TaskQueue", "TaskQueue.drain"]
    assert list(index.in_file("docs/x.md")) == []
    index.extend([D("src/c.py", "drain", "function", 7, 9)])
    assert len(index) == 4 and [d.path for d in index.named("drain")] == ["src/a.py", "src/b.py", "src/c.py"]


def test_resource_of_a_definition() -> None:
    assert D("src/q.py", "TaskQueue.drain", "method", 12, 20).resource == "repo://src/q.py#L12-L20"
    assert D("src/a b.py", "f", "function", 3).resource == "repo://src/a%20b.py#L3-L3"  # canonical, as OpenWiki writes
    assert D("src/é.py", "f", "function", 1).resource == "repo://src/%C3%A9.py#L1-L1"
    # a file's own name, not a resource's text: `#` does not end the path, `%` is no escape
    assert D("src/ex#tra.py", "f", "function", 2).resource == "repo://src/ex%23tra.py#L2-L2"
    assert replace(D("src/ex%20tra.py", "f", "function", 2, 4), head=1).documented == "repo://src/ex%2520tra.py#L1-L4"


# -- the values the code writes ------------------------------------------------------------------------------


def test_string_literals_and_where_they_stand() -> None:
    index = SymbolIndex.of_files({path: (DATA / path).read_bytes() for path in FILES})
    assert index.literal("https://api.github.com") == [("python/sansio.py", 397)]
    assert index.literal("ERR_NOT_SUPPORT") == [("javascript/adapters.js", 72)]
    assert index.literal("ReflectionAccessFilter#BLOCK_INACCESSIBLE_JAVA") == [
        ("java/ReflectionAccessFilter.java", 123)
    ]
    assert index.literal("ZodError") == [("typescript/ZodError.ts", 211)]
    assert ("go/groupcache.go", 28) in index.literal("context")  # an import's path is a string too
    assert ("rust/context.rs", 121) in index.literal("Error")
    # not fixed values: a string with an interpolation, text in comments, nothing at all
    assert index.literal("application/vnd.github.") == [] and index.literal("application/vnd.github.{version}") == []
    assert index.literal("Not a ZodError: ") == []
    assert index.literal("License") == [] and index.literal("AS IS") == []
    assert index.literal("") == [] and index.literal("no such value") == []


def test_the_definition_a_line_stands_in() -> None:
    index = SymbolIndex.of_files({path: (DATA / path).read_bytes() for path in FILES})

    def at(path: str, line: int) -> str | None:
        found = index.enclosing(path, line)
        return None if found is None else f"{found.qualified} {found.start}-{found.end}"

    assert at("python/sansio.py", 397) == "DOMAIN 397-397"
    assert at("python/connections.py", 60) == "RedisSettings.from_dsn 57-77"  # the innermost
    assert at("python/connections.py", 25) == "RedisSettings 24-80"
    assert at("javascript/adapters.js", 72) == "getAdapter 29-77"
    assert at("rust/context.rs", 121) == "ContextError.fmt 120-125"
    assert at("java/ReflectionAccessFilter.java", 123) == "ReflectionAccessFilter.BLOCK_INACCESSIBLE_JAVA 112-125"
    assert at("javascript/adapters.js", 16) is None  # a top-level callback is no definition
    assert at("python/sansio.py", 1) is None and at("no/such/file.py", 3) is None


def test_definitions_alone_read_no_values() -> None:
    index = SymbolIndex(read("python/sansio.py"))
    assert len(index) == len(read("python/sansio.py")) and index.literal("https://api.github.com") == []
    files = {path: (DATA / path).read_bytes() for path in FILES}
    without = SymbolIndex.of_files(files, values=False)
    assert without.definitions == SymbolIndex.of_files(files).definitions
    assert without.literal("https://api.github.com") == []


# -- what documents a definition -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "qualified", "start", "head"),
    [
        ("python/connections.py", "RedisSettings", 24, 23),  # its decorator
        ("python/connections.py", "RedisSettings.from_dsn", 57, 56),
        ("python/connections.py", "create_pool", 220, 220),  # nothing above it
        ("javascript/component.js", "BaseComponent.setState", 35, 26),  # its JSDoc
        ("javascript/create-element.js", "createElement", 16, 7),
        ("typescript/ref.ts", "RefImpl", 114, 111),
        ("go/groupcache.go", "Getter", 41, 40),  # its comment
        ("go/groupcache.go", "Getter.Get", 48, 42),  # an interface method's comment
        ("go/groupcache.go", "MainCache", 377, 375),
        ("rust/lib.rs", "Buffer.new", 98, 94),  # doc comments and attributes
        ("rust/macros.rs", "bail", 58, 1),  # a doc comment from the top of the file
        ("rust/chain.rs", "ChainState", 16, 15),  # `#[derive(Clone)]`
        ("java/JsonNull.java", "JsonNull.hashCode", 56, 54),  # its javadoc, then `@Override`
        ("java/FieldNamingPolicy.java", "FieldNamingPolicy.IDENTITY", 34, 33),
        ("java/SerializedName.java", "SerializedName", 86, 25),  # a javadoc (lines 25 to 82), three annotations
    ],
)
def test_what_documents_a_definition(path: str, qualified: str, start: int, head: int) -> None:
    [found] = [d for d in read(path) if d.qualified == qualified and d.start == start]
    assert found.head == head
    assert found.documented == f"repo://{path}#L{head}-L{found.end}"
    assert found.resource == f"repo://{path}#L{start}-L{found.end}"


def test_only_what_stands_right_above_documents_a_definition() -> None:
    source = (
        b"# about the module\n"
        b"\n"
        b"def alone():\n"  # a blank line between: the comment is the module's
        b"    pass\n"
        b"LIMIT = 3  # a comment ending a line of code is that code's\n"
        b"def after_code():\n"
        b"    pass\n"
    )
    found = {d.qualified: (d.start, d.head) for d in definitions("m.py", source)}
    assert found == {"alone": (3, 3), "LIMIT": (5, 5), "after_code": (6, 6)}
    assert D("m.py", "f", "function", 3, 4) == Definition("f", "f", "function", "m.py", 3, 4, head=1)  # not identity


def test_a_file_with_a_syntax_error_is_known_as_one() -> None:
    """What a file that does not parse seems to lack may be there: rich's `style.py` of March 2020, whose class
    docstring was indented too far (tree-sitter forgives that; Python does not)."""
    from bot.ground.symbols import does_not_parse

    over_indented = b'class Style:\n        """A style."""\n    def parse(cls, text):\n        return cls(text)\n'
    assert does_not_parse("rich/style.py", over_indented)
    assert does_not_parse("src/a.ts", b"export function f( {\n")  # tree-sitter's own error nodes
    assert not does_not_parse("rich/style.py", over_indented.replace(b"        \"\"\"", b"    \"\"\""))
    assert not does_not_parse("src/a.ts", b"export function f() {}\n")
    assert not does_not_parse("README.md", b"# not code (\n")  # no grammar: nothing to say
