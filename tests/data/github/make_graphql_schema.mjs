#!/usr/bin/env node
// Writes schema.graphql: GitHub's public GraphQL schema (SDL) from @octokit/graphql-schema, whole, with two
// repairs, so that graphql-core (3.3, like graphql-js 17) builds and validates it:
//  - a field the published SDL defines twice in one type is kept once (it must match the first definition
//    apart from its description, or the script stops);
//  - an implementation field marked @deprecated whose interface field is not deprecated loses the directive
//    (the current GraphQL spec forbids that combination; deprecation does not change what a query may ask).
//
//   node tests/data/github/make_graphql_schema.mjs                  # the pinned versions below, via `npm pack`
//   node tests/data/github/make_graphql_schema.mjs --version latest # upgrade @octokit/graphql-schema
//
// graphql-js itself is fetched the same way (npm pack, no install) to parse the SDL and validate the result.
// The tests never run this script.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PACKAGE = "@octokit/graphql-schema";
const PINNED_VERSION = "15.26.1";
const GRAPHQL_JS_VERSION = "17.1.0";
const MAX_BYTES = 2 * 1024 * 1024; // keep the whole schema below this; above it, prune (not needed so far)
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUTPUT = path.join(HERE, "schema.graphql");

function parseArgs(argv) {
  const args = { version: PINNED_VERSION };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--version") args.version = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
}

// `npm pack NAME@VERSION` into a temporary folder and unpack it there; returns the package folder.
function fetchPackage(name, version) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wikiwarden-npm-"));
  const out = execFileSync("npm", ["pack", `${name}@${version}`, "--json", "--silent"], { cwd: tmp, encoding: "utf8" });
  const tarball = path.join(tmp, JSON.parse(out)[0].filename);
  execFileSync("tar", ["xzf", tarball, "-C", tmp]);
  return path.join(tmp, "package");
}

function readVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const schemaDir = fetchPackage(PACKAGE, args.version);
  const version = readVersion(schemaDir);
  const graphqlDir = fetchPackage("graphql", GRAPHQL_JS_VERSION);
  const graphql = await import(pathToFileURL(path.join(graphqlDir, "index.js")).href);

  const sdl = fs.readFileSync(path.join(schemaDir, "schema.graphql"), "utf8");
  const document = graphql.parse(sdl);
  const cuts = [];
  const repairs = [];
  const withoutDescription = (node) => graphql.print({ ...node, description: undefined });
  for (const definition of document.definitions) {
    for (const key of ["fields", "values"]) {
      const seen = new Map();
      for (const member of definition[key] ?? []) {
        const name = member.name.value;
        const first = seen.get(name);
        if (!first) {
          seen.set(name, member);
          continue;
        }
        if (withoutDescription(first) !== withoutDescription(member)) {
          throw new Error(`${definition.name.value}.${name} is defined twice, differently: repair by hand`);
        }
        // Cut the duplicate with the blank line before it, keeping the first definition.
        let start = member.loc.start;
        while (start > 0 && /\s/.test(sdl[start - 1])) start--;
        cuts.push([start, member.loc.end]);
        repairs.push(`${definition.name.value}.${name}`);
      }
    }
  }
  // Implementation fields deprecated where their interface's field is not.
  const isDeprecated = (field) => (field.directives ?? []).some((d) => d.name.value === "deprecated");
  const interfaces = new Map();
  for (const definition of document.definitions) {
    if (definition.kind === graphql.Kind.INTERFACE_TYPE_DEFINITION) interfaces.set(definition.name.value, definition);
  }
  const undeprecated = [];
  for (const definition of document.definitions) {
    for (const field of definition.interfaces?.length ? (definition.fields ?? []) : []) {
      if (!isDeprecated(field)) continue;
      const plain = definition.interfaces.some((named) => {
        const inherited = interfaces.get(named.name.value)?.fields?.find((f) => f.name.value === field.name.value);
        return inherited && !isDeprecated(inherited);
      });
      if (!plain) continue;
      for (const directive of field.directives.filter((d) => d.name.value === "deprecated")) {
        let start = directive.loc.start;
        while (start > 0 && sdl[start - 1] === " ") start--;
        cuts.push([start, directive.loc.end]);
      }
      undeprecated.push(`${definition.name.value}.${field.name.value}`);
    }
  }

  let repaired = sdl;
  cuts.sort((a, b) => b[0] - a[0]);
  for (let i = 1; i < cuts.length; i++) {
    if (cuts[i][1] > cuts[i - 1][0]) throw new Error("two repairs overlap: repair by hand");
  }
  for (const [start, end] of cuts) {
    repaired = repaired.slice(0, start) + repaired.slice(end);
  }

  const header = [
    `# GitHub's public GraphQL schema, from ${PACKAGE}@${version} (MIT; schema.graphql of the package).`,
    "# Written by tests/data/github/make_graphql_schema.mjs; do not edit by hand.",
    `# Repaired: duplicate definitions dropped (the first is kept): ${repairs.join(", ") || "none"}.`,
    `# Repaired: @deprecated dropped where the interface field is not deprecated: ${undeprecated.join(", ") || "none"}.`,
  ].join("\n");
  const output = `${header}\n${repaired.replace(/^\s+/, "\n")}`;
  const problems = graphql.validateSchema(graphql.buildASTSchema(graphql.parse(output)));
  if (problems.length) throw new Error(`the repaired schema is still invalid:\n${problems.join("\n")}`);

  const bytes = Buffer.byteLength(output);
  if (bytes > MAX_BYTES) {
    throw new Error(`the schema is ${bytes} bytes, over ${MAX_BYTES}: prune it to what the fake GitHub serves`);
  }
  fs.writeFileSync(OUTPUT, output.endsWith("\n") ? output : `${output}\n`);
  console.log(`${OUTPUT}: ${bytes} bytes from ${PACKAGE}@${version}; ${repairs.length} duplicates dropped, ${undeprecated.length} @deprecated dropped`);
}

await main();
