// Regenerates the sidecar writer's golden files: `node tests/data/golden/make_sidecars.mjs` from the repo root.
// sidecar_cases.json holds the inputs (JSON.stringify escapes lone surrogates, so it is well-formed UTF-8);
// sidecars/<name>.json holds OpenWiki's exact bytes: JSON.stringify(value, null, 2) + "\n".
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const sha = (text) => "sha256:" + createHash("sha256").update(text).digest("hex");
const id = (n) => "claim_" + createHash("md5").update(String(n)).digest("hex");
const lines = (path, a, b) => ({
  resource: `repo://${path}#L${a}-L${b}`,
  version: `repo-lines-v1:${createHash("sha1").update(path + a + b).digest("base64url")}`,
});
const file = (path) => ({
  resource: `repo://${path}`,
  version: `repo-file-v1:sha256:${createHash("sha256").update(path).digest("hex")}`,
});
const verification = { by: "openwiki/0.3.3", at: "2026-08-22T10:15:30.123Z" };

// Key order as OpenWiki builds the object: schemaVersion, pageVersion, claims, verification.
const sidecar = (page, claims, verified) => ({
  schemaVersion: 1,
  pageVersion: sha(page),
  claims: claims.map(([n, statement, evidence]) => ({ id: id(n), statement, evidence })),
  ...(verified ? { verification } : {}),
});

const cases = {
  minimal: sidecar("# Quickstart\n", [[1, "The CLI starts with `wikiwarden check`.", [file("bot/cli.py")]]]),
  verified_many: sidecar(
    "# Architecture\n\nSome prose.\n",
    [
      [2, "The sweep reads each file once per snapshot.", [lines("bot/claims/sweep.py", 150, 170), file("bot/claims/text.py")]],
      [3, "Sidecars are written atomically.", [lines("bot/claims/edit.py", 1, 9)]],
      [4, "Pages sort with localeCompare.", [lines("bot/claims/collation.py", 10, 16), lines("bot/claims/sweep.py", 115, 116), file("README.md")]],
    ],
    true,
  ),
  empty_claims: sidecar("# Empty page\n", []),
  empty_claims_verified: sidecar("# Empty but verified (older writer)\n", [], true),
  non_ascii: sidecar("# Café\n", [
    [5, "Café naïve résumé — “smart quotes” ‘single’ ü ß Ångström 日本語 中文 العربية עברית Ελληνικά ελλάδα", [file("src/café/über.py")]],
    [6, "é", [lines("docs/ñandú.md", 3, 4)]],
  ], true),
  astral: sidecar("# Emoji\n", [
    [7, "Deploys 🚀 with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math, 👩‍💻 ZWJ sequences, flags 🇫🇷 and 𠀀 (CJK ext B)", [file("deploy/🚀.sh")]],
    [8, "\ud83d\ude00 written as an escaped pair", [file("a.py")]],
  ]),
  control_chars: sidecar("# Control\n", [
    [9, "a\u0000b\u0001c\u001fd\be\ff\ng\rh\ti\u000bj\u001bk", [file("ctl.py")]],
    [10, "\u0001starts and ends with controls\u001f", [lines("ctl.py", 1, 1)]],
  ], true),
  quotes_backslashes: sidecar("# Quotes\n", [
    [11, 'He said "hi" and left \\ C:\\Users\\x\\ and \\"escaped\\" and \'single\' and / slash', [file("q.py")]],
    [12, "Inline </script><script>alert(1)</script> and <!-- comment --> & &amp;", [file("web/index.html")]],
  ]),
  separators: sidecar("# Separators\n", [
    [13, "DEL\u007fhere, LS\u2028PS\u2029NEL\u0085, NBSP\u00a0inside, BOM\ufeffinside, ZWSP\u200bjoined", [file("sep.py")]],
    [14, "\u0085NEL is not JS whitespace\u0085", [file("sep.py")]],
  ], true),
  lone_surrogates: sidecar("# Surrogates\n", [
    [15, "high \ud800 alone", [file("s.py")]],
    [16, "low \udc00 alone", [file("s.py")]],
    [17, "reversed \udc00\ud800 pair", [file("s.py")]],
    [18, "ends with high \udbff", [{ resource: "repo://odd/\udfff.py", version: "v\ud800" }]],
  ], true),
  long_statement: sidecar("# Long\n" + "x".repeat(1000), [
    [19, "A long statement. ".repeat(40).trim(), [lines("bot/claims/track.py", 1, 400)]],
  ]),
};

for (const [name, value] of Object.entries(cases)) {
  const strings = JSON.stringify(value).match(/"(?:[^"\\]|\\.)*"/g).map((s) => JSON.parse(s));
  for (const s of strings) {
    if (s.length === 0 || s !== s.trim()) throw new Error(`${name}: not canonical: ${JSON.stringify(s)}`);
  }
  const ids = value.claims.map((c) => c.id);
  if (new Set(ids).size !== ids.length) throw new Error(`${name}: duplicate ids`);
}

const out = join(here, "sidecars");
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
for (const [name, value] of Object.entries(cases)) {
  const text = JSON.stringify(value, null, 2) + "\n";
  if (text.includes("\ufffd")) throw new Error(`${name}: would not be well-formed`);
  writeFileSync(join(out, `${name}.json`), Buffer.from(text, "utf8"));
}
const inputs = Object.entries(cases).map(([name, sidecar]) => ({ name, sidecar }));
writeFileSync(join(here, "sidecar_cases.json"), JSON.stringify(inputs, null, 1) + "\n");
console.log(`wrote ${inputs.length} cases`);
