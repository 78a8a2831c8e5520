// Regenerates locale_order.json: `node tests/data/golden/make_locale_order.mjs` from the repo root.
// The list is sorted exactly as OpenWiki sorts paths: `(a, b) => a.localeCompare(b)` (ICU, en-US).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

const names = new Set([
  // Repository root files.
  "README.md", "readme.md", "Readme.md", "README", "README.rst", "README-dev.md", "README_dev.md", "README.dev.md",
  "CHANGELOG.md", "CONTRIBUTING.md", "LICENSE", "LICENSE.txt", "Makefile", "makefile", "Dockerfile",
  "docker-compose.yml", "docker-compose.override.yml", "pyproject.toml", "setup.py", "setup.cfg",
  "package.json", "package-lock.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "tsconfig.json",
  "tsconfig.base.json", "tsconfig.build.json", "eslint.config.js", ".gitignore", ".openwikiignore",
  ".github/workflows/ci.yml", ".github/workflows/openwiki-update.yml", ".env.example", "_config.yml",
  "-dash-first.md", "~backup.md", "#notes.md", "@scope/pkg/index.ts", "$HOME.md", "+plus.md", "(draft).md",
  "[wip].md", "{braces}.md", "a b.md", "a  b.md", "a-b.md", "a_b.md", "a.b.md", "ab.md", "a/b.md", "aB.md",
  "Ab.md", "AB.md", "a'b.md", "a,b.md", "a;b.md", "a=b.md", "a&b.md", "a%20b.md", "a!b.md", "a^b.md",
  // analyze_x.py and friends: `_` < `-` < `.` < digits < letters.
  "analyze_x.py", "analyze-x.py", "analyze.x.py", "analyzex.py", "analyzeX.py", "analyze_data.py",
  "analyze-data.py", "analyze.py", "analyze1.py", "analyze2.py", "analyze9.py", "analyze10.py",
  "analyze_1.py", "analyze_9.py", "analyze_10.py", "analyze_01.py", "analyzer.py", "Analyze.py",
  "ANALYZE.md", "analysis.md", "analyse.py",
  // Source trees.
  "src/index.ts", "src/Index.ts", "src/main.ts", "src/main.test.ts", "src/main-test.ts", "src/main_test.ts",
  "src/agent/docs-only-backend.ts", "src/agent/openwiki-ignore.ts", "src/agent/repository-prompts.ts",
  "src/claims/brains/code/paths.ts", "src/claims/brains/code/store.ts", "src/claims/brains/code/types.ts",
  "src/claims/core/errors.ts", "src/claims/evidence/repository/resource.ts",
  "src/claims/evidence/repository/resolver.ts", "src/okf/index-sync.ts", "src/okf/claim-sources.ts",
  "src/okf/generated-provenance.ts", "src/okf/claims-verification.ts", "src-old/index.ts", "src_old/index.ts",
  "src.old/index.ts", "srcs/index.ts", "src2/index.ts", "src10/index.ts", "SRC/index.ts",
  "bot/__init__.py", "bot/__main__.py", "bot/cli.py", "bot/claims/__init__.py", "bot/claims/collation.py",
  "bot/claims/edit.py", "bot/claims/errors.py", "bot/claims/evidence.py", "bot/claims/ignore.py",
  "bot/claims/linediff.py", "bot/claims/locate.py", "bot/claims/pages.py", "bot/claims/report.py",
  "bot/claims/resources.py", "bot/claims/results.py", "bot/claims/sidecar.py", "bot/claims/snapshot.py",
  "bot/claims/sweep.py", "bot/claims/text.py", "bot/claims/track.py", "bot/claims/verdicts.py",
  "bot/claims/versions.py", "bot/source/git.py", "bot/pipeline.py", "bot/localwiki.py", "bot/demo.py",
  "tests/conftest.py", "tests/test_sidecar.py", "tests/test_pages.py", "tests/test_ignore.py",
  "tests/test_collation.py", "tests/data/vectors/README.md", "tests/test-utils.py", "tests/test.utils.py",
  "lib/utils.js", "lib/utils.spec.js", "lib/utils-spec.js", "lib/Utils.js", "lib/util.js", "lib/utilities.js",
  // Wiki pages.
  "openwiki/index.md", "openwiki/INSTRUCTIONS.md", "openwiki/quickstart.md", "openwiki/Quickstart.md",
  "openwiki/quick-start.md", "openwiki/quick_start.md", "openwiki/_plan.md", "openwiki/_skeleton.md",
  "openwiki/log.md", "openwiki/.last-update.json", "openwiki/.claims/quickstart.json",
  "openwiki/.claims/architecture/overview.json", "openwiki/architecture/index.md",
  "openwiki/architecture/overview.md", "openwiki/architecture/Overview.md", "openwiki/architecture.md",
  "openwiki/architecture-notes.md", "openwiki/architecture_notes.md", "openwiki/architecture/data-flow.md",
  "openwiki/architecture/data_flow.md", "openwiki/architecture/dataflow.md", "openwiki/guides/configuration.md",
  "openwiki/guides/Configuration.md", "openwiki/guides/config-files.md", "openwiki/guides/config_files.md",
  "openwiki/guides/config.files.md", "openwiki/guides/configure.md", "openwiki/guides/CLI.md",
  "openwiki/guides/cli.md", "openwiki/guides/cli-reference.md", "openwiki/api/v1.md", "openwiki/api/v2.md",
  "openwiki/api/v9.md", "openwiki/api/v10.md", "openwiki/api/v1.10.md", "openwiki/api/v1.9.md",
  "openwiki/api/v1.2.md", "openwiki/api/V1.md", "openwiki/api/index.md", "openwiki/api/rest/endpoints.md",
  "openwiki/api-reference.md", "openwiki/api_reference.md", "openwiki/apis.md", "openwiki/claims/grounding.md",
  "openwiki/claims/staleness.md", "openwiki/claims/relocation.md", "openwiki/concepts/okf.md",
  "openwiki/concepts/OKF.md", "openwiki/concepts/ledger-eval.md", "docs/wiki/index.md", "docs/wiki/intro.md",
  "docs/wiki/.claims/intro.json", "docs/architecture/adr-001.md", "docs/architecture/adr-010.md",
  "docs/architecture/adr-002.md", "docs/architecture/ADR-003.md", "docs/Architecture.md", "docs-site/index.md",
  "docs_site/index.md", "docs.site/index.md", "docs2/index.md",
  // Numbers and dates.
  "file1.md", "file2.md", "file9.md", "file10.md", "file11.md", "file100.md", "file01.md", "file001.md",
  "file 1.md", "file-1.md", "file_1.md", "file.1.md", "File1.md", "FILE1.md", "2024-01-05-notes.md",
  "2024-1-5-notes.md", "2024-10-01-notes.md", "2024-02-29-notes.md", "2023-12-31.md", "20240105.md",
  "0.md", "00.md", "1.md", "10.md", "9.md", "v0.3.3.md", "v0.3.10.md", "v0.10.0.md", "1st-steps.md",
  // Accents and other scripts.
  "café.md", "cafe.md", "Café.md", "CAFÉ.md", "cafés.md", "cafeteria.md", "cafe-au-lait.md", "caffè.md",
  "über.md", "uber.md", "Uber.md", "Über.md", "ubuntu.md", "ueber.md", "naïve.md", "naive.md", "Naive.md",
  "résumé.md", "resume.md", "Résumé.md", "resumes.md", "façade.md", "facade.md", "Facade.md", "straße.md",
  "strasse.md", "Strasse.md", "strase.md", "Ångström.md", "angstrom.md", "Angstrom.md", "ångström.md",
  "ñandú.md", "nandu.md", "nañdu.md", "zürich.md", "Zurich.md", "zurich.md", "œuvre.md", "oeuvre.md",
  "æther.md", "aether.md", "Ærø.md", "øre.md", "ore.md", "ça-va.md", "ca-va.md", "école.md", "ecole.md",
  "élan.md", "elan.md", "Éclair.md", "eclair.md", "ēlan.md", "ì.md", "i.md", "ı.md", "İstanbul.md",
  "istanbul.md", "Ljubljana.md", "čeština.md", "cestina.md", "šum.md", "sum.md", "žito.md", "zito.md",
  "Ελληνικά.md", "ελληνικά.md", "Русский.md", "русский.md", "日本語.md", "中文.md", "한국어.md", "عربى.md",
  "emoji-🚀.md", "emoji-😀.md", "emoji.md",
]);

const list = [...names];
const sorted = [...list].sort((a, b) => a.localeCompare(b));
// The default locale must be en-US and agree with ICU root; every adjacent pair must differ (no ties),
// so the order does not depend on the stability of the sort.
const locale = new Intl.Collator().resolvedOptions().locale;
if (locale !== "en-US") throw new Error(`default locale is ${locale}; run with LANG=en_US.UTF-8`);
const root = [...list].sort(new Intl.Collator("und").compare);
if (JSON.stringify(root) !== JSON.stringify(sorted)) throw new Error("en-US and root collation disagree");
for (let i = 1; i < sorted.length; i += 1) {
  if (sorted[i - 1].localeCompare(sorted[i]) >= 0) throw new Error(`tie: ${sorted[i - 1]} ${sorted[i]}`);
}
// Pairs found by sweeping whole Unicode blocks where ICU's order differs from DUCET 10 (pyuca): currency
// signs, Arabic letters with high hamza, and rarer Han ideographs. Stored in ICU order.
const divergent = [
  ["\u20a7", "\u20a9"], ["\u0627", "\u0675"], ["\u06e5", "\u0676"], ["\u4e16", "\u4e17"],
  ["\u4e2c", "\u4e2d"], ["\u4e3c", "\u4e3d"], ["\u5344", "\u4e0d"], ["\u52b4", "\u52b3"],
].map((pair) => pair.map((c) => `${c}.md`).sort((a, b) => a.localeCompare(b)));
writeFileSync(
  join(here, "locale_order.json"),
  JSON.stringify(
    { icu: process.versions.icu, unicode: process.versions.unicode, locale, order: sorted, divergent },
    null,
    1,
  ) + "\n",
);
console.log(`wrote ${sorted.length} names (ICU ${process.versions.icu})`);
