#!/usr/bin/env node
// Writes openapi-subset.json: the REST operations Wikiwarden calls, cut out of GitHub's published OpenAPI
// description (@octokit/openapi, generated/api.github.com.json) together with every component they reference.
//
//   node tests/data/github/make_openapi_subset.mjs                  # the pinned version below, via `npm pack`
//   node tests/data/github/make_openapi_subset.mjs --version latest # upgrade (then review the diff)
//   node tests/data/github/make_openapi_subset.mjs --from DIR       # an unpacked package (DIR/package.json)
//
// Only Node's standard library and the npm client are used; the tests never run this script.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "@octokit/openapi";
const PINNED_VERSION = "23.0.2";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUTPUT = path.join(HERE, "openapi-subset.json");

// [operation id as the fake GitHub names it, method, path template in the description]
const OPERATIONS = [
  ["apps/get-authenticated", "get", "/app"],
  ["apps/create-installation-access-token", "post", "/app/installations/{installation_id}/access_tokens"],
  ["apps/get-repo-installation", "get", "/repos/{owner}/{repo}/installation"],
  ["repos/get", "get", "/repos/{owner}/{repo}"],
  ["git/get-tree", "get", "/repos/{owner}/{repo}/git/trees/{tree_sha}"],
  ["git/get-blob", "get", "/repos/{owner}/{repo}/git/blobs/{file_sha}"],
  ["git/get-commit", "get", "/repos/{owner}/{repo}/git/commits/{commit_sha}"],
  ["repos/list-commits", "get", "/repos/{owner}/{repo}/commits"],
  // GitHub's own description calls this one repos/compare-commits; @octokit/openapi renames it
  // repos/compare-commits-with-basehead and gives the old name to a deprecated /compare/{base}...{head} alias.
  ["repos/compare-commits", "get", "/repos/{owner}/{repo}/compare/{basehead}"],
  ["checks/create", "post", "/repos/{owner}/{repo}/check-runs"],
  ["checks/update", "patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["checks/get", "get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"],
  ["checks/list-for-ref", "get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"],
  ["pulls/list", "get", "/repos/{owner}/{repo}/pulls"],
  ["pulls/create", "post", "/repos/{owner}/{repo}/pulls"],
  ["pulls/get", "get", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["pulls/update", "patch", "/repos/{owner}/{repo}/pulls/{pull_number}"],
  ["git/create-blob", "post", "/repos/{owner}/{repo}/git/blobs"],
  ["git/create-tree", "post", "/repos/{owner}/{repo}/git/trees"],
  ["git/create-commit", "post", "/repos/{owner}/{repo}/git/commits"],
  ["git/get-ref", "get", "/repos/{owner}/{repo}/git/ref/{ref}"],
  ["git/create-ref", "post", "/repos/{owner}/{repo}/git/refs"],
  ["git/update-ref", "patch", "/repos/{owner}/{repo}/git/refs/{ref}"],
  ["issues/create-comment", "post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
];

function parseArgs(argv) {
  const args = { version: PINNED_VERSION, from: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--version") args.version = argv[++i];
    else if (argv[i] === "--from") args.from = argv[++i];
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

function decodePointer(token) {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

// Every "#/components/<section>/<name>" reachable from `node`, following references into components.
function collectRefs(spec, node, found) {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(spec, item, found);
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") {
      const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(value);
      if (!match) throw new Error(`unexpected $ref ${value}`);
      const [section, name] = [match[1], decodePointer(match[2])];
      const id = `${section}\u0000${name}`;
      if (found.has(id)) continue;
      const target = spec.components?.[section]?.[name];
      if (target === undefined) throw new Error(`dangling $ref ${value}`);
      found.set(id, [section, name, target]);
      collectRefs(spec, target, found);
    } else {
      collectRefs(spec, value, found);
    }
  }
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const packageDir = args.from ?? fetchPackage(PACKAGE, args.version);
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
  if (pkg.name !== PACKAGE) throw new Error(`${packageDir} holds ${pkg.name}, not ${PACKAGE}`);
  const sourceFile = "generated/api.github.com.json";
  const spec = JSON.parse(fs.readFileSync(path.join(packageDir, sourceFile), "utf8"));

  const paths = {};
  const found = new Map();
  for (const [id, method, template] of OPERATIONS) {
    const item = spec.paths[template];
    const operation = item?.[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${template} (${id}) is not in ${sourceFile}`);
    const copy = structuredClone(operation);
    if (copy.operationId !== id) {
      copy["x-octokit-operation-id"] = copy.operationId;
      copy.operationId = id;
    }
    paths[template] ??= item.parameters ? { parameters: structuredClone(item.parameters) } : {};
    paths[template][method] = copy;
    collectRefs(spec, copy, found);
    if (item.parameters) collectRefs(spec, item.parameters, found);
  }

  const components = {};
  const entries = [...found.values()].sort(([s1, n1], [s2, n2]) => (s1 === s2 ? (n1 < n2 ? -1 : 1) : s1 < s2 ? -1 : 1));
  for (const [section, name, target] of entries) {
    components[section] ??= {};
    components[section][name] = target;
  }

  const subset = {
    openapi: spec.openapi,
    info: spec.info,
    "x-source": `${PACKAGE}@${pkg.version}`,
    "x-source-file": sourceFile,
    "x-generated-by": "tests/data/github/make_openapi_subset.mjs",
    servers: spec.servers,
    paths,
    components,
  };
  fs.writeFileSync(OUTPUT, `${JSON.stringify(subset, null, 2)}\n`);
  const counts = Object.entries(components).map(([section, names]) => `${Object.keys(names).length} ${section}`);
  console.log(`${OUTPUT}: ${OPERATIONS.length} operations, ${counts.join(", ")}, from ${PACKAGE}@${pkg.version}`);
}

main();
