"""deploy/ agrees with the code: every WIKIWARDEN_* variable it names is a setting, every process it defines gets
the settings it needs (from its env file, ConfigMap or Secret, resolved as Compose and Kubernetes would), runs a
command the CLI has, and listens and is probed where the settings say. No Docker or cluster needed: the files are
parsed as YAML and the configurations are handed to `Settings` itself.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, get_args
from urllib.parse import urlsplit

import pytest
from pydantic import SecretStr
from ruamel.yaml import YAML

from bot.cli import build_parser
from bot.settings import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
COMPOSE = DEPLOY / "docker-compose.yml"
ENV_EXAMPLE = DEPLOY / "wikiwarden.env.example"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"

FIELDS = {ENV_PREFIX + name.upper(): info for name, info in Settings.model_fields.items()}
REQUIRED = {name for name, info in FIELDS.items() if info.is_required()}
SECRETS = {name for name, info in FIELDS.items() if SecretStr in (get_args(info.annotation) or (info.annotation,))}
KEY, KEY_PATH = f"{ENV_PREFIX}PRIVATE_KEY", f"{ENV_PREFIX}PRIVATE_KEY_PATH"
PROBE_PATH, METRICS_PATH = "/healthz", "/metrics"
# What each process runs, and the setting naming its port.
ROLES = {"web": ("serve", f"{ENV_PREFIX}PORT"), "worker": ("worker", f"{ENV_PREFIX}WORKER_PORT")}


def default(name: str) -> Any:
    value = FIELDS[name].default
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def load_documents(path: Path) -> list[Any]:
    """Every YAML document of a file (Kubernetes manifests hold several, separated by `---`)."""
    return [doc for doc in YAML(typ="safe", pure=True).load_all(path.read_text()) if doc is not None]


def env_lines(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """An env file's variables: (set, commented out), each name to its value."""
    active: dict[str, str] = {}
    commented: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if match := re.fullmatch(r"\s*(#\s*)?([A-Za-z_][A-Za-z0-9_]*)=(.*)", line):
            (commented if match[1] else active)[match[2]] = match[3].strip()
    return active, commented


# --- the processes, as Compose and Kubernetes would configure them ---


@dataclass
class Process:
    where: str
    role: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)  # the value each variable gets (placeholders of the examples)
    origin: dict[str, str] = field(default_factory=dict)  # literal, env_file, configmap or secret
    secret_files: set[str] = field(default_factory=set)  # files mounted from secrets

    def set(self, name: str, value: object, origin: str) -> None:
        self.env[name] = str(value)
        self.origin[name] = origin

    def port(self) -> int:
        name = ROLES[self.role][1]
        return int(self.env.get(name, default(name)))

    def grace(self) -> float:
        """How long the process lets running jobs finish on SIGTERM (its setting, and never less than the default)."""
        name = f"{ENV_PREFIX}SHUTDOWN_GRACE_SECONDS"
        return max(float(self.env.get(name, default(name))), float(default(name)))


@cache
def compose() -> dict[str, Any]:
    (doc,) = load_documents(COMPOSE)
    return doc


def compose_process(role: str) -> Process:
    service = compose()["services"][role]
    command = service["command"]
    process = Process(
        f"docker-compose.yml, service {role}", role, shlex.split(command) if isinstance(command, str) else command
    )
    env_files = service.get("env_file", [])
    for entry in [env_files] if isinstance(env_files, str | dict) else env_files:
        path = DEPLOY / (entry["path"] if isinstance(entry, dict) else entry)
        example = path.with_name(path.name + ".example")  # the file a person makes from the example
        assert example.is_file(), f"{process.where}: env_file {path.name} has no {example.name} to start from"
        for name, value in env_lines(example)[0].items():
            process.set(name, value, "env_file")
    environment = service.get("environment", {})
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    for name, value in environment.items():
        process.set(name, value, "literal")
    declared = compose().get("secrets", {})
    for secret in service.get("secrets", []):
        source, target = (secret, secret) if isinstance(secret, str) else (secret["source"], secret.get("target"))
        assert source in declared, f"{process.where}: secret {source} is not declared at the top level"
        assert "file" in declared[source] or "environment" in declared[source], f"secret {source} has no source"
        target = target or source
        process.secret_files.add(target if target.startswith("/") else f"/run/secrets/{target}")
    return process


@cache
def k8s_objects() -> dict[tuple[str, str], dict[str, Any]]:
    objects = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in load_documents(path):
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in objects, f"{path.name}: {key} is defined twice in deploy/k8s"
            objects[key] = doc
    return objects


def k8s_deployment(role: str) -> dict[str, Any]:
    return k8s_objects()[("Deployment", f"wikiwarden-{role}")]


def k8s_container(role: str) -> dict[str, Any]:
    (container,) = k8s_deployment(role)["spec"]["template"]["spec"]["containers"]
    return container


def k8s_data(kind: str, name: str, where: str) -> dict[str, Any]:
    obj = k8s_objects().get((kind, name))
    assert obj is not None, f"{where}: refers to {kind} {name}, which deploy/k8s does not define"
    return {**obj.get("data", {}), **obj.get("stringData", {})}


def k8s_process(role: str) -> Process:
    container = k8s_container(role)
    process = Process(f"k8s/{role}.yaml", role, [*container.get("command", []), *container.get("args", [])])
    for source in container.get("envFrom", []):  # `env` below wins over `envFrom`, as in Kubernetes
        prefix = source.get("prefix", "")
        for kind, ref, origin in (("ConfigMap", "configMapRef", "configmap"), ("Secret", "secretRef", "secret")):
            if ref in source:
                for name, value in k8s_data(kind, source[ref]["name"], process.where).items():
                    process.set(prefix + name, value, origin)
    for var in container.get("env", []):
        if "value" in var:
            process.set(var["name"], var["value"], "literal")
            continue
        for kind, ref, origin in (("ConfigMap", "configMapKeyRef", "configmap"), ("Secret", "secretKeyRef", "secret")):
            if ref in var["valueFrom"]:
                data = k8s_data(kind, var["valueFrom"][ref]["name"], process.where)
                key = var["valueFrom"][ref]["key"]
                assert key in data, f"{process.where}: {var['name']} reads key {key!r}, missing from {kind} example"
                process.set(var["name"], data[key], origin)
        assert var["name"] in process.env, f"{process.where}: {var['name']} has no value"
    volumes = {volume["name"]: volume for volume in k8s_deployment(role)["spec"]["template"]["spec"]["volumes"]}
    for mount in container.get("volumeMounts", []):
        if secret := volumes[mount["name"]].get("secret"):
            data = k8s_data("Secret", secret["secretName"], process.where)
            items = secret.get("items") or [{"key": key, "path": key} for key in data]
            for item in items:
                assert item["key"] in data, f"{process.where}: volume {mount['name']} mounts missing key {item['key']}"
                process.secret_files.add(str(PurePosixPath(mount["mountPath"]) / item["path"]))
    return process


PROCESSES = {
    "compose-web": lambda: compose_process("web"),
    "compose-worker": lambda: compose_process("worker"),
    "k8s-web": lambda: k8s_process("web"),
    "k8s-worker": lambda: k8s_process("worker"),
}


@pytest.fixture(params=sorted(PROCESSES))
def process(request: pytest.FixtureRequest) -> Process:
    return PROCESSES[request.param]()


# --- settings: names and values ---


def test_every_wikiwarden_variable_named_in_deploy_is_a_setting() -> None:
    files = [path for path in DEPLOY.rglob("*") if path.is_file()]
    assert files, "deploy/ is empty"
    unknown = {}
    for path in files:
        for name in re.findall(rf"\b{ENV_PREFIX}[A-Z0-9_]+", path.read_text()):
            if name not in FIELDS:
                unknown.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not unknown, f"not fields of bot.settings.Settings (typos?): {unknown}"


def test_the_env_example_lists_what_the_app_needs_with_true_defaults() -> None:
    active, commented = env_lines(ENV_EXAMPLE)
    named = active.keys() | commented.keys()
    missing = (REQUIRED | SECRETS | {KEY, KEY_PATH}) - named
    assert not missing, f"{ENV_EXAMPLE.name} does not mention {sorted(missing)}"
    assert active.keys() >= REQUIRED, "the required settings are set (to placeholders), not commented out"
    for name, value in commented.items():  # `# NAME=VALUE` shows the default, when the setting has one
        if value and default(name) is not None:
            expected = default(name)
            same = float(value) == float(expected) if isinstance(expected, int | float) else value == str(expected)
            assert same, f"{ENV_EXAMPLE.name}: # {name}={value}, but the default is {expected!r}"


def test_no_real_secret_is_in_deploy() -> None:
    for path in (p for p in DEPLOY.rglob("*") if p.is_file()):
        assert "PRIVATE KEY-----" not in path.read_text(), f"{path.name} holds a PEM private key"
    active, _ = env_lines(ENV_EXAMPLE)
    assert KEY not in active, "the example passes the key as a file (WIKIWARDEN_PRIVATE_KEY_PATH), not PEM text"
    for name in SECRETS & active.keys():
        assert "replace" in active[name].lower(), f"{ENV_EXAMPLE.name}: {name} is not an obvious placeholder"
    secret = k8s_objects()[("Secret", "wikiwarden")]
    for key, value in secret["stringData"].items():
        assert "REPLACE" in value or value.startswith("redis://redis:"), f"secret.example.yaml: {key} is no placeholder"


def test_each_process_is_configured_as_settings_accepts(process: Process, monkeypatch: pytest.MonkeyPatch) -> None:
    """The configuration, placeholders and all, is what `Settings` reads from the environment without an error."""
    assert process.env.keys() >= REQUIRED, f"{process.where}: missing {sorted(REQUIRED - process.env.keys())}"
    keys = {KEY, KEY_PATH} & process.env.keys()
    assert len(keys) == 1, f"{process.where}: set exactly one of {KEY} and {KEY_PATH}, not {sorted(keys)}"
    if KEY_PATH in keys:
        path = process.env[KEY_PATH]
        assert path in process.secret_files, f"{process.where}: {KEY_PATH}={path} is not a mounted secret file"
    assert process.env.get(f"{ENV_PREFIX}QUEUE_BACKEND") == "redis", f"{process.where}: the queue must be Redis"
    assert f"{ENV_PREFIX}REDIS_URL" in process.env, f"{process.where}: no {ENV_PREFIX}REDIS_URL"

    for name in list(os.environ):
        if name.upper().startswith(ENV_PREFIX):
            monkeypatch.delenv(name)
    for name, value in process.env.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.queue_backend == "redis"
    assert getattr(settings, ROLES[process.role][1].removeprefix(ENV_PREFIX).lower()) == process.port()


def test_secrets_are_never_literal_values(process: Process) -> None:
    for name in SECRETS & process.env.keys():
        origin = process.origin[name]
        if process.where.startswith("k8s"):
            assert origin == "secret", f"{process.where}: {name} comes from a {origin}, not from a Secret"
        elif origin == "literal":  # Compose: only a password-less URL of its own Redis may be written out
            url = urlsplit(process.env[name])
            assert name == f"{ENV_PREFIX}REDIS_URL", f"{process.where}: {name} written in the compose file"
            assert url.password is None, f"{process.where}: a Redis password written in the compose file"


def test_the_redis_url_points_at_the_redis_defined_beside_it(process: Process) -> None:
    url = urlsplit(process.env[f"{ENV_PREFIX}REDIS_URL"])
    if process.where.startswith("k8s"):
        service = k8s_objects().get(("Service", url.hostname.split(".")[0]))
        assert service is not None, f"{process.where}: no Service {url.hostname} for the Redis URL"
        assert url.port in {port["port"] for port in service["spec"]["ports"]}
    else:
        assert url.hostname in compose()["services"], f"{process.where}: no service {url.hostname} for the Redis URL"
        depends = compose()["services"][process.role]["depends_on"]
        assert depends[url.hostname]["condition"] == "service_healthy"
        assert "redis-cli" in compose()["services"][url.hostname]["healthcheck"]["test"]


# --- commands ---


def test_each_process_runs_a_command_of_the_cli(process: Process) -> None:
    """`wikiwarden serve` and `wikiwarden worker`, both subcommands of bot.cli (the console script's parser)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts.get(process.command[0]) == "bot.cli:run", f"{process.where}: {process.command[0]} is no script"
    subcommand = ROLES[process.role][0]
    assert process.command[1:] == [subcommand], f"{process.where}: runs {process.command}"
    (commands,) = (action for action in build_parser()._actions if action.dest == "command")
    assert subcommand in commands.choices, f"bot.cli has no `{subcommand}` subcommand (yet?)"


# --- ports, probes, metrics, shutdown ---


def test_the_default_ports_are_the_ones_deploy_uses() -> None:
    assert default(f"{ENV_PREFIX}PORT") == 8080
    assert default(f"{ENV_PREFIX}WORKER_PORT") == 8081


def named_port(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    (number,) = (p["containerPort"] for p in container["ports"] if p.get("name") == port)
    return number


@pytest.mark.parametrize("role", sorted(ROLES))
def test_k8s_ports_probes_and_scrape_annotations_agree_with_the_settings(role: str) -> None:
    process, container = k8s_process(role), k8s_container(role)
    template = k8s_deployment(role)["spec"]["template"]
    port = process.port()
    assert port in {p["containerPort"] for p in container["ports"]}
    for probe in ("readinessProbe", "livenessProbe"):
        check = container[probe]["httpGet"]
        assert check["path"] == PROBE_PATH, f"{role}: {probe} asks {check['path']}"
        assert named_port(container, check["port"]) == port, f"{role}: {probe} is not on port {port}"
    annotations = template["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(port)
    assert annotations["prometheus.io/path"] == METRICS_PATH


def test_k8s_web_service_reaches_the_web_pods() -> None:
    service = k8s_objects()[("Service", "wikiwarden-web")]
    deployment = k8s_deployment("web")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (port,) = service["spec"]["ports"]
    assert port["port"] == 80
    assert named_port(k8s_container("web"), port["targetPort"]) == k8s_process("web").port()
    assert deployment["spec"]["replicas"] >= 2, "GitHub does not redeliver a failed webhook by itself"


def test_compose_ports_and_healthchecks_agree_with_the_settings() -> None:
    services = compose()["services"]
    web, worker = compose_process("web"), compose_process("worker")
    published = [str(mapping).rsplit(":", 1)[-1] for mapping in services["web"]["ports"]]
    assert str(web.port()) in published
    for process in (web, worker):
        test = services[process.role]["healthcheck"]["test"]
        text = " ".join(test) if isinstance(test, list) else test
        assert f":{process.port()}{PROBE_PATH}" in text, f"{process.where}: healthcheck does not ask {PROBE_PATH}"
    assert services["worker"]["deploy"]["replicas"] >= 2


def duration_seconds(text: str | int) -> float:
    """A Compose duration: `45s`, `1m30s`, `500ms`."""
    if isinstance(text, int | float):
        return float(text)
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", text)
    assert parts and "".join(n + u for n, u in parts) == text, f"not a duration: {text!r}"
    return sum(float(number) * units[unit] for number, unit in parts)


def test_workers_get_more_time_to_stop_than_their_jobs_get_to_finish() -> None:
    compose_worker, k8s_worker = compose_process("worker"), k8s_process("worker")
    stop_grace = duration_seconds(compose()["services"]["worker"]["stop_grace_period"])
    assert stop_grace > compose_worker.grace(), f"compose: stop_grace_period {stop_grace} s is too short"
    termination = k8s_deployment("worker")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert termination > k8s_worker.grace(), f"k8s: terminationGracePeriodSeconds {termination} is too short"


# --- Kubernetes: references and hardening ---


def test_k8s_objects_share_one_namespace_and_configmaps_hold_strings() -> None:
    namespaces = [name for kind, name in k8s_objects() if kind == "Namespace"]
    assert namespaces == ["wikiwarden"]
    for (kind, name), obj in k8s_objects().items():
        if kind != "Namespace":
            assert obj["metadata"].get("namespace") == "wikiwarden", f"{kind} {name} is outside the namespace"
        if kind == "ConfigMap":
            for key, value in obj["data"].items():
                assert isinstance(value, str), f"ConfigMap {name}: {key} must be a string (quote it)"
                assert key not in SECRETS, f"ConfigMap {name} holds the secret {key}: put it in a Secret"


def dockerfile_user() -> str:
    users = [args for instruction, args in dockerfile_stages()[-1] if instruction == "USER"]
    assert users, "the image's last stage sets no USER"
    return users[-1]


@pytest.mark.parametrize("role", sorted(ROLES))
def test_k8s_pods_run_hardened(role: str) -> None:
    spec = k8s_deployment(role)["spec"]["template"]["spec"]
    container = k8s_container(role)
    context = {**spec.get("securityContext", {}), **container.get("securityContext", {})}
    assert context.get("runAsNonRoot") is True
    assert context.get("readOnlyRootFilesystem") is True
    assert context.get("allowPrivilegeEscalation") is False
    assert str(context.get("runAsUser")) == dockerfile_user().split(":")[0], "runAsUser is not the image's USER"
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    tmp = [mount for mount in container["volumeMounts"] if mount["mountPath"] == "/tmp"]
    assert tmp and "emptyDir" in volumes[tmp[0]["name"]], f"{role}: a read-only root needs an emptyDir at /tmp"
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= container["resources"][kind].keys(), f"{role}: resources.{kind}"


# --- the image ---


@cache
def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions, (INSTRUCTION, arguments), stage by stage; continuation lines joined."""
    stages: list[list[tuple[str, str]]] = []
    logical = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not logical and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.lstrip().startswith("#"):  # a comment inside a continued instruction
            continue
        logical += line.rstrip()
        if logical.endswith("\\"):
            logical = logical[:-1] + " "
            continue
        instruction, _, args = logical.strip().partition(" ")
        logical = ""
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), args.strip()))
    return stages


def dockerfile_last(instruction: str) -> str:
    found = [args for name, args in dockerfile_stages()[-1] if name == instruction]
    assert found, f"the image's last stage has no {instruction}"
    return found[-1]


def test_the_image_runs_as_a_user_that_is_not_root() -> None:
    user = dockerfile_user().split(":")[0]
    assert user not in {"root", "0"}
    assert user.isdigit(), "a numeric USER, so that Kubernetes' runAsNonRoot can check it"
    assert dockerfile_last("FROM").split()[0] == "python:3.11-slim"


def test_the_image_checks_its_health_without_curl() -> None:
    healthcheck = dockerfile_last("HEALTHCHECK")
    assert PROBE_PATH in healthcheck and "urllib" in healthcheck
    assert "curl" not in healthcheck and "wget" not in healthcheck, "the slim image has neither"
    for name in (f"{ENV_PREFIX}PORT", f"{ENV_PREFIX}WORKER_PORT"):
        assert name in healthcheck and str(default(name)) in healthcheck


def test_the_image_exposes_both_ports_and_serves_by_default() -> None:
    exposed = {int(port.split("/")[0]) for port in dockerfile_last("EXPOSE").split()}
    assert {default(f"{ENV_PREFIX}PORT"), default(f"{ENV_PREFIX}WORKER_PORT")} <= exposed
    assert json.loads(dockerfile_last("CMD")) == ["wikiwarden", ROLES["web"][0]]


def test_the_image_bakes_in_no_secret() -> None:
    for stage in dockerfile_stages():
        for instruction, args in stage:
            if instruction in {"ENV", "ARG"}:
                names = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=", args) or args.split()[:1]
                for name in names:
                    secretive = name in SECRETS or (name.startswith(ENV_PREFIX) and ("SECRET" in name or "KEY" in name))
                    assert not secretive, f"Dockerfile: {instruction} {name}: secrets are given at run time"
            if instruction in {"COPY", "ADD"}:
                assert not re.search(r"\.(pem|key|env)\b", args), f"Dockerfile: {instruction} {args}"


def dockerignored(path: str, patterns: list[str]) -> bool:
    """Whether the build context leaves `path` out (.dockerignore rules, the last matching one wins)."""
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for rule in patterns:
        negated, pattern = rule.startswith("!"), rule.lstrip("!").strip("/")
        for candidate in candidates:
            if fnmatch.fnmatchcase(candidate, pattern) or (
                pattern.startswith("**/") and fnmatch.fnmatchcase(candidate.rsplit("/", 1)[-1], pattern[3:])
            ):
                excluded = not negated
    return excluded


def test_the_build_context_has_what_the_image_copies_and_nothing_else() -> None:
    patterns = [
        line.strip() for line in DOCKERIGNORE.read_text().splitlines() if line.strip() and not line.startswith("#")
    ]
    for unwanted in (".venv", ".git", "tests", "bench", "docs", "site", "bot/__pycache__", ".pytest_cache", ".ruff_cache"):
        assert dockerignored(unwanted, patterns), f"{DOCKERIGNORE.name} lets {unwanted} into the build context"
    sources = []
    for stage in dockerfile_stages():
        for instruction, args in stage:
            words = args.split()
            if instruction == "COPY" and not any(word.startswith("--from") for word in words):
                sources += [word for word in words[:-1] if not word.startswith("--")]
    assert "bot" in sources and (ROOT / "bot" / "app.yml").is_file(), "`wikiwarden manifest` reads bot/app.yml"
    for source in sources:
        assert (ROOT / source).exists(), f"Dockerfile copies {source}, which the repository does not have"
        assert not dockerignored(source, patterns), f"Dockerfile copies {source}, which {DOCKERIGNORE.name} leaves out"
