#!/usr/bin/env node
// Writes the webhook payloads the bot handles, as GitHub documents them, from @octokit/webhooks-examples
// (api.github.com/index.json): one pretty-printed file per example, named
//   <event>.<action>.<n>.json   (or <event>.<n>.json for events without actions: push, ping)
// where n counts that event's (and action's) examples from 1 in the package's order. Each file gets a
// `_source` field first: the package version and the example's index. index.json lists the files, and what
// was asked for but has no example.
//
//   node tests/data/webhooks/make_examples.mjs                  # the pinned version below, via `npm pack`
//   node tests/data/webhooks/make_examples.mjs --version latest # upgrade (then review the diff)
//
// Only Node's standard library and the npm client are used; the tests never run this script.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "@octokit/webhooks-examples";
const PINNED_VERSION = "7.6.1";
const SOURCE_FILE = "api.github.com/index.json";
const HERE = path.dirname(fileURLToPath(import.meta.url));

// event -> the actions wanted (null: every example); fork: also look for a pull request from a fork.
const WANTED = [
  { event: "push", actions: null },
  { event: "pull_request", actions: ["opened", "synchronize", "reopened", "closed"], fork: true },
  { event: "check_suite", actions: ["requested", "rerequested"] },
  { event: "check_run", actions: ["rerequested", "requested_action", "created"] },
  { event: "installation", actions: ["created", "deleted"] },
  { event: "installation_repositories", actions: null },
  { event: "ping", actions: null },
];

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

const isFork = (example) => {
  const head = example.pull_request?.head?.repo?.full_name;
  const base = example.pull_request?.base?.repo?.full_name;
  return Boolean(head && base && head !== base);
};

function main() {
  const args = parseArgs(process.argv.slice(2));
  const packageDir = fetchPackage(PACKAGE, args.version);
  const version = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
  const webhooks = JSON.parse(fs.readFileSync(path.join(packageDir, SOURCE_FILE), "utf8"));
  const byName = new Map(webhooks.map((webhook) => [webhook.name, webhook]));

  for (const old of fs.readdirSync(HERE)) {
    if (old.endsWith(".json")) fs.unlinkSync(path.join(HERE, old)); // regenerate from scratch
  }
  const files = [];
  const missing = [];
  const write = (name, event, example, index, variant) => {
    const source = `${PACKAGE}@${version} ${SOURCE_FILE}: ${event} examples[${index}]`;
    fs.writeFileSync(path.join(HERE, name), `${JSON.stringify({ _source: source, ...example }, null, 2)}\n`);
    files.push({ file: name, event, action: example.action ?? null, variant: variant ?? null, example_index: index });
  };

  for (const { event, actions, fork } of WANTED) {
    const webhook = byName.get(event);
    if (!webhook) {
      missing.push(`${event}: the package has no such event`);
      continue;
    }
    const examples = webhook.examples.map((example, index) => ({ example, index }));
    const groups = actions ?? [...new Set(examples.map(({ example }) => example.action ?? null))];
    for (const action of groups) {
      const chosen = examples.filter(({ example }) => (example.action ?? null) === action);
      if (chosen.length === 0) missing.push(`${event}.${action}: no example`);
      chosen.forEach(({ example, index }, n) => {
        const name = action === null ? `${event}.${n + 1}.json` : `${event}.${action}.${n + 1}.json`;
        write(name, event, example, index);
      });
    }
    if (fork) {
      const forks = examples.filter(({ example }) => isFork(example));
      if (forks.length === 0) missing.push(`${event}.fork: no example whose head repository differs from its base`);
      forks.forEach(({ example, index }, n) => write(`${event}.fork.${n + 1}.json`, event, example, index, "fork"));
    }
  }

  const index = { _source: `${PACKAGE}@${version} ${SOURCE_FILE}`, files, missing };
  fs.writeFileSync(path.join(HERE, "index.json"), `${JSON.stringify(index, null, 2)}\n`);
  console.log(`${HERE}: ${files.length} examples from ${PACKAGE}@${version}`);
  for (const line of missing) console.log(`missing: ${line}`);
}

main();
