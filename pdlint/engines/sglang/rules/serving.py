"""Role-independent SGLang checks on the serving surface: SSL/HTTP, gRPC and
its sidecar, tokenizer workers, scheduling policy, metrics, multimodal input,
watermarking and load formats (SGL601-SGL699, ``research/sglang-rules.md``
section 4.5).

Each predicate mirrors the condition in SGLang 0.5.23's hook named in
``source``.  Host facts (whether an SSL file exists, whether granian is
installed, which device SGLang detects) are never guessed: device checks fire
only for an explicit ``--device``.  Environment variables are read as SGLang's
``envs`` does (``EnvInt``/``EnvBool`` parsing; an invalid value falls back to
the default).
"""

import json

from pdlint import lazyre
from pdlint.engines.sglang.rulebase import WARNING, Hit, at_least, ex, sgl_rule
from pdlint.text import TStr

CAT = "serving"
_UNKNOWN = object()


def _pipeline(a) -> bool:
    """SGLang runs its resolution hooks past the platform checks (``--model-path dummy``/``none`` returns
    before them; ``check_server_args`` still runs)."""
    path = a.get("model_path")
    return isinstance(path, str) and path.lower() not in ("none", "dummy")


def _env_int(a, name):
    """SGLang's EnvInt: None when unset or not an integer (SGLang warns and keeps the default None),
    _UNKNOWN when the value is not visible."""
    if name not in a.env:
        return None
    v = a.env_value(name)
    if v is None:
        return _UNKNOWN
    try:
        return int(v)
    except ValueError:
        return None


def _env_bool(a, name):
    """SGLang's EnvBool: True/False, None when unset, invisible or invalid (SGLang keeps the default)."""
    v = a.env_value(name)
    if v is None:
        return None
    v = v.lower()
    return True if v in ("true", "1", "yes", "y") else False if v in ("false", "0", "no", "n") else None


def _env_tok(a, name):
    """The environment entry itself (so a finding can point at where the variable is set)."""
    tok = a.env.get(name)
    return (tok,) if isinstance(tok, TStr) else ()


def _legacy_grpc(a):
    """--smg-grpc-mode or its deprecated alias --grpc-mode; None when unknown."""
    if not (a.known("smg_grpc_mode") and a.known("grpc_mode")):
        return None
    return a.is_true("smg_grpc_mode") or a.is_true("grpc_mode")


def _grpc_port(a):
    """``(port, source)`` as ``handle_deprecated_args`` resolves --grpc-port: the flag, else env
    SGLANG_GRPC_PORT, else (legacy SMG mode) --port + 10000.  ``port`` is None when gRPC is off and
    _UNKNOWN when pdlint cannot tell."""
    legacy = _legacy_grpc(a)
    if legacy is None or not a.known("grpc_port"):
        return _UNKNOWN, None
    port = a.get("grpc_port")
    if port is not None:
        return port, "grpc_port"
    port = _env_int(a, "SGLANG_GRPC_PORT")
    if port is not None:
        return port, "env"
    if legacy:
        base = a.num("port")
        return (_UNKNOWN, None) if base is None else (int(base) + 10000, "port")
    return None, None


def _grpc_blame(a, source):
    if source == "port":
        return ("port", "smg_grpc_mode" if a.is_true("smg_grpc_mode") else "grpc_mode")
    return ("grpc_port",) if source == "grpc_port" else _env_tok(a, "SGLANG_GRPC_PORT")


def _grpc_note(source) -> str:
    if source == "env":
        return "SGLANG_GRPC_PORT is set in this launch's environment"
    if source == "port":
        return "legacy SMG gRPC mode defaults --grpc-port to --port + 10000"
    return ""


def _native_grpc(a) -> bool:
    """The native gRPC server is on (a gRPC port and no legacy SMG mode)."""
    port, _ = _grpc_port(a)
    return port is not _UNKNOWN and port is not None and _legacy_grpc(a) is False


def _speculating(a) -> bool:
    """A speculative algorithm is set (aux hidden-state capture resets it to None)."""
    return (isinstance(a.get("speculative_algorithm"), str) and a.known("enable_return_aux_hidden_states")
            and not a.is_true("enable_return_aux_hidden_states"))


def _device(a):
    """An explicit --device without its index ("cuda:1" is "cuda"); None when unset or unknown (SGLang
    detects the device of the host)."""
    v = a.get("device")
    return v.split(":")[0] if a.explicit("device") and isinstance(v, str) else None


def _truthy(a, dest) -> bool:
    """Python truthiness of a known value (SGLang's ``if cfg.x:``)."""
    v = a.get(dest)
    return a.known(dest) and bool(v)


def _falsy(a, dest) -> bool:
    v = a.get(dest)
    return a.known(dest) and not v


# -- SSL and HTTP (serving_hook.handle_ssl_validation) ---------------------------------------------------

SSL_FILES = "--ssl-keyfile /etc/hosts --ssl-certfile /etc/hosts"


@sgl_rule(
    "SGL601", "ssl-keyfile-without-certfile", category=CAT,
    upstream="--ssl-keyfile requires --ssl-certfile to be specified as well.",
    source="arg_groups/serving_hook.py:51", upstream_id="ssl-keyfile-needs-certfile",
    why="HTTPS needs both the private key and its certificate.",
    fix="Add `--ssl-certfile`, or drop `--ssl-keyfile`.",
    fire=["--ssl-keyfile /etc/hosts"], quiet=[SSL_FILES],
    notes="SGLang also requires every SSL file to exist on the host; pdlint does not check the filesystem. "
          "The quiet example uses a file that exists on any Linux host.")
def _ssl_key(a):
    if _pipeline(a) and _truthy(a, "ssl_keyfile") and _falsy(a, "ssl_certfile"):
        return Hit("ssl_keyfile")


@sgl_rule(
    "SGL602", "ssl-certfile-without-keyfile", category=CAT,
    upstream="--ssl-certfile requires --ssl-keyfile to be specified as well.",
    source="arg_groups/serving_hook.py:55", upstream_id="ssl-keyfile-needs-certfile",
    why="HTTPS needs both the certificate and its private key.",
    fix="Add `--ssl-keyfile`, or drop `--ssl-certfile`.",
    fire=["--ssl-certfile /etc/hosts"], quiet=[SSL_FILES])
def _ssl_cert(a):
    if _pipeline(a) and _truthy(a, "ssl_certfile") and _falsy(a, "ssl_keyfile"):
        return Hit("ssl_certfile")


@sgl_rule(
    "SGL603", "ssl-ca-certs-without-ssl", category=CAT,
    upstream="--ssl-ca-certs has no effect without --ssl-certfile and --ssl-keyfile.",
    source="arg_groups/serving_hook.py:60", upstream_id="ssl-keyfile-needs-certfile",
    why="CA certificates (client verification) only matter when the server speaks HTTPS.",
    fix="Add `--ssl-certfile` and `--ssl-keyfile`, or drop `--ssl-ca-certs`.",
    fire=["--ssl-ca-certs /etc/hosts"], quiet=[SSL_FILES + " --ssl-ca-certs /etc/hosts"])
def _ssl_ca(a):
    if _pipeline(a) and _falsy(a, "ssl_certfile") and _falsy(a, "ssl_keyfile") and _truthy(a, "ssl_ca_certs"):
        return Hit("ssl_ca_certs")


@sgl_rule(
    "SGL604", "ssl-keyfile-password-without-ssl", category=CAT,
    upstream="--ssl-keyfile-password has no effect without --ssl-certfile and --ssl-keyfile.",
    source="arg_groups/serving_hook.py:64", upstream_id="ssl-keyfile-needs-certfile",
    why="The key-file password only decrypts `--ssl-keyfile`.",
    fix="Add `--ssl-certfile` and `--ssl-keyfile`, or drop `--ssl-keyfile-password`.",
    fire=["--ssl-keyfile-password secret"], quiet=[SSL_FILES + " --ssl-keyfile-password secret"])
def _ssl_password(a):
    if _pipeline(a) and _falsy(a, "ssl_certfile") and _falsy(a, "ssl_keyfile") and _truthy(a, "ssl_keyfile_password"):
        return Hit("ssl_keyfile_password")


@sgl_rule(
    "SGL605", "ssl-refresh-without-ssl", category=CAT,
    upstream="--enable-ssl-refresh requires --ssl-certfile and --ssl-keyfile to be specified.",
    source="arg_groups/serving_hook.py:84", upstream_id="ssl-refresh-needs-ssl",
    why="SSL refresh reloads the certificate and key files when they change; there is nothing to reload "
        "without them.",
    fix="Add `--ssl-certfile` and `--ssl-keyfile`, or drop `--enable-ssl-refresh`.",
    fire=["--enable-ssl-refresh"], quiet=["--enable-ssl-refresh " + SSL_FILES])
def _ssl_refresh(a):
    if _pipeline(a) and a.is_true("enable_ssl_refresh") and (_falsy(a, "ssl_certfile") or _falsy(a, "ssl_keyfile")):
        return Hit("enable_ssl_refresh")


@sgl_rule(
    "SGL606", "ssl-refresh-with-http2", category=CAT,
    upstream="--enable-ssl-refresh is not supported with --enable-http2. Granian does not support SSL certificate "
             "hot-reloading. Use Uvicorn (the default) or handle certificate rotation externally.",
    source="arg_groups/serving_hook.py:116", upstream_id="ssl-refresh-needs-ssl",
    why="The HTTP/2 server (Granian) cannot hot-reload certificates.",
    fix="Drop `--enable-ssl-refresh` or `--enable-http2`.",
    fire=["--enable-http2 --enable-ssl-refresh " + SSL_FILES], quiet=["--enable-ssl-refresh " + SSL_FILES],
    notes="SGLang checks this after it has found the granian package; without granian it fails earlier.")
def _ssl_refresh_http2(a):
    if _pipeline(a) and a.is_true("enable_ssl_refresh") and a.is_true("enable_http2"):
        return Hit("enable_ssl_refresh", "enable_http2")


@sgl_rule(
    "SGL607", "http-worker-reuseport-misconfigured", category=CAT,
    upstream="--enable-http-worker-reuseport requires --tokenizer-worker-num > 1 and has no effect with "
             "--enable-http2.",
    source="arg_groups/serving_hook.py:91", upstream_id="http-worker-reuseport",
    why="SO_REUSEPORT spreads HTTP connections over several tokenizer worker processes of the Uvicorn server.",
    fix="Set `--tokenizer-worker-num` above 1 (without `--enable-http2`), or drop "
        "`--enable-http-worker-reuseport`.",
    fire=["--enable-http-worker-reuseport", "--enable-http-worker-reuseport --tokenizer-worker-num 2 --enable-http2"],
    quiet=["--enable-http-worker-reuseport --tokenizer-worker-num 2"])
def _reuseport(a):
    if _pipeline(a) and a.is_true("enable_http_worker_reuseport"):
        if a.eq("tokenizer_worker_num", 1):
            return Hit("enable_http_worker_reuseport", "tokenizer_worker_num")
        if a.is_true("enable_http2"):
            return Hit("enable_http_worker_reuseport", "enable_http2")


@sgl_rule(
    "SGL608", "http2-max-concurrent-streams-range", category=CAT,
    upstream="--http2-max-concurrent-streams must be between 1 and 4294967295.",
    source="arg_groups/serving_hook.py:98", upstream_id="http2-ranges",
    why="HTTP/2 limits the concurrent-streams setting to an unsigned 32-bit value of at least 1.",
    fix="Use a value from 1 to 4294967295 (default 200).",
    fire=["--enable-http2 --http2-max-concurrent-streams 0"], quiet=["--http2-max-concurrent-streams 0"],
    notes="Checked only with `--enable-http2`, which also needs the granian package on the host (not checked).")
def _http2_streams(a):
    v = a.num("http2_max_concurrent_streams")
    if _pipeline(a) and a.is_true("enable_http2") and v is not None and not 0 < v < 2**32:
        return Hit("http2_max_concurrent_streams")


@sgl_rule(
    "SGL609", "http2-initial-window-range", category=CAT,
    upstream="--http2-initial-connection-window-size must be between 1024 and 2147483647.",
    source="arg_groups/serving_hook.py:102", upstream_id="http2-ranges",
    why="HTTP/2 flow-control windows are limited to 2^31-1 bytes; SGLang also requires at least 1 KiB.",
    fix="Use a window size from 1024 to 2147483647 (default 1048576).",
    fire=["--enable-http2 --http2-initial-connection-window-size 100"],
    quiet=["--http2-initial-connection-window-size 100"])
def _http2_window(a):
    v = a.num("http2_initial_connection_window_size")
    if _pipeline(a) and a.is_true("enable_http2") and v is not None and not 1024 <= v < 2**31:
        return Hit("http2_initial_connection_window_size")


# -- gRPC (serving_hook.handle_deprecated_args, validation_hook.check_server_args) -----------------------

@sgl_rule(
    "SGL610", "grpc-response-timeout-not-positive", category=CAT,
    upstream="--grpc-response-timeout-secs must be positive",
    source="arg_groups/serving_hook.py:379", upstream_id="grpc-response-timeout-positive",
    why="A zero or negative response timeout would fail every gRPC request.",
    fix="Give `--grpc-response-timeout-secs` a positive value (default 300).",
    fire=["--grpc-response-timeout-secs 0"], quiet=["--grpc-response-timeout-secs 60"])
def _grpc_timeout(a):
    if _pipeline(a) and a.le("grpc_response_timeout_secs", 0):
        return Hit("grpc_response_timeout_secs")


@sgl_rule(
    "SGL611", "grpc-port-out-of-range", category=CAT,
    upstream="--grpc-port / SGLANG_GRPC_PORT ({grpc_port}) must be between 1 and 65535",
    source="arg_groups/serving_hook.py:383", upstream_id="grpc-port-range",
    why="The gRPC port comes from `--grpc-port`, else env `SGLANG_GRPC_PORT`, else (legacy `--smg-grpc-mode` / "
        "`--grpc-mode`) `--port` + 10000 - so an HTTP port above 55535 breaks legacy gRPC mode.",
    fix="Use a gRPC port from 1 to 65535 (set `--grpc-port` explicitly when `--port` is high).",
    fire=["--grpc-port 70000", "--smg-grpc-mode --port 60000", ex("", {"SGLANG_GRPC_PORT": "70000"})],
    quiet=["--grpc-port 50051", "--port 60000", "--smg-grpc-mode --port 60000 --grpc-port 50051"],
    env=("SGLANG_GRPC_PORT",))
def _grpc_range(a):
    port, source = _grpc_port(a)
    if _pipeline(a) and isinstance(port, int) and not 1 <= port <= 65535:
        return Hit(*_grpc_blame(a, source), fmt={"grpc_port": port}, note=_grpc_note(source))


@sgl_rule(
    "SGL612", "grpc-worker-threads-below-one", category=CAT,
    upstream="SGLANG_GRPC_WORKER_THREADS ({grpc_worker_threads}) must be >= 1",
    source="arg_groups/serving_hook.py:388", upstream_id="grpc-port-range",
    why="The gRPC server's thread pool size comes from env `SGLANG_GRPC_WORKER_THREADS` (default 4) and is "
        "checked whenever gRPC is on.",
    fix="Unset `SGLANG_GRPC_WORKER_THREADS` or give it a positive value.",
    fire=[ex("--grpc-port 50051", {"SGLANG_GRPC_WORKER_THREADS": "0"})],
    quiet=[ex("--grpc-port 50051", {"SGLANG_GRPC_WORKER_THREADS": "8"}),
           ex("", {"SGLANG_GRPC_WORKER_THREADS": "0"})],
    env=("SGLANG_GRPC_WORKER_THREADS", "SGLANG_GRPC_PORT"))
def _grpc_threads(a):
    port, source = _grpc_port(a)
    threads = _env_int(a, "SGLANG_GRPC_WORKER_THREADS")
    if _pipeline(a) and isinstance(port, int) and isinstance(threads, int) and threads < 1:
        return Hit(*_grpc_blame(a, source), fmt={"grpc_worker_threads": threads},
                   note="SGLANG_GRPC_WORKER_THREADS is set in this launch's environment")


@sgl_rule(
    "SGL613", "grpc-port-equals-http-port", category=CAT,
    upstream="--grpc-port ({grpc_port}) must differ from --port ({port})",
    source="arg_groups/validation_hook.py:360", upstream_id="grpc-port-differs-from-port",
    why="The native gRPC server listens next to the HTTP server; both cannot bind one port (default `--port` is "
        "30000). Legacy SMG mode replaces the HTTP server and is exempt.",
    fix="Pick a different `--grpc-port` (or `SGLANG_GRPC_PORT`) than `--port`.",
    fire=["--grpc-port 30000", ex("--port 8000", {"SGLANG_GRPC_PORT": "8000"})],
    quiet=["--grpc-port 30000 --port 8000", "--grpc-port 30000 --smg-grpc-mode"],
    env=("SGLANG_GRPC_PORT",))
def _grpc_same_port(a):
    port, source = _grpc_port(a)
    if source == "env" and not _pipeline(a):
        return None  # the env fallback is applied by a resolution hook that --model-path dummy skips
    if isinstance(port, int) and _legacy_grpc(a) is False and a.eq("port", port):
        return Hit(*_grpc_blame(a, source), "port", note=_grpc_note(source), fmt={"grpc_port": port})


def _native_rule(code, name, upstream, line, dest, why, fix, fire, quiet, test):
    """One of the launch paths the native gRPC server (a gRPC port without legacy SMG mode) refuses."""
    @sgl_rule(code, name, category=CAT, upstream=upstream, source=f"arg_groups/serving_hook.py:{line}",
              upstream_id="native-grpc-incompatible", why=why, fix=fix, fire=fire, quiet=quiet,
              env=("SGLANG_GRPC_PORT",))
    def check(a):
        if _pipeline(a) and _native_grpc(a) and test(a):
            _, source = _grpc_port(a)
            return Hit(dest, *_grpc_blame(a, source), note=_grpc_note(source))
    return check


_native_rule(
    "SGL614", "native-grpc-with-ray",
    "--grpc-port is not supported with --use-ray: the Ray serve launch path does not start the native gRPC server.",
    414, "use_ray", "The Ray launch path never starts the native gRPC server.",
    "Drop `--grpc-port` (and `SGLANG_GRPC_PORT`) or `--use-ray`.",
    ["--grpc-port 50051 --use-ray"], ["--grpc-port 50051", "--use-ray --smg-grpc-mode"],
    lambda a: a.is_true("use_ray"))

_native_rule(
    "SGL615", "native-grpc-with-encoder-only",
    "--grpc-port is not supported with --encoder-only: encoder disaggregation uses its own server.",
    419, "encoder_only", "An encoder-only server (encoder disaggregation) runs its own server, not native gRPC.",
    "Drop `--grpc-port` (and `SGLANG_GRPC_PORT`) from the encoder server.",
    ["--grpc-port 50051 --encoder-only"], ["--grpc-port 50051"],
    lambda a: a.is_true("encoder_only"))

_native_rule(
    "SGL616", "native-grpc-with-tokenizer-workers",
    "Native gRPC does not yet support --tokenizer-worker-num > 1. Unset --grpc-port or set --tokenizer-worker-num 1.",
    424, "tokenizer_worker_num", "The native gRPC server talks to a single tokenizer manager.",
    "Use `--tokenizer-worker-num 1` with `--grpc-port`, or drop gRPC.",
    ["--grpc-port 50051 --tokenizer-worker-num 2", ex("--tokenizer-worker-num 4", {"SGLANG_GRPC_PORT": "50051"})],
    ["--grpc-port 50051 --tokenizer-worker-num 1", "--smg-grpc-mode --tokenizer-worker-num 2"],
    lambda a: a.gt("tokenizer_worker_num", 1))

_native_rule(
    "SGL617", "native-grpc-with-api-key",
    "--grpc-port is incompatible with --api-key/--admin-api-key: the native gRPC listener bypasses HTTP auth "
    "middleware.",
    429, "api_key", "API keys are enforced by the HTTP middleware, which the native gRPC listener bypasses.",
    "Drop `--api-key`/`--admin-api-key` or native gRPC (`--grpc-port`, `SGLANG_GRPC_PORT`).",
    ["--grpc-port 50051 --api-key secret", "--grpc-port 50051 --admin-api-key secret"],
    ["--api-key secret", "--smg-grpc-mode --api-key secret"],
    lambda a: _truthy(a, "api_key") or _truthy(a, "admin_api_key"))


@sgl_rule(
    "SGL618", "sidecar-args-without-sidecar", category=CAT,
    upstream="--sidecar-args requires --sidecar.",
    source="arg_groups/serving_hook.py:397", upstream_id="sidecar-constraints",
    why="`--sidecar-args` are the arguments of the `--sidecar` process.",
    fix="Add `--sidecar`, or drop `--sidecar-args`.",
    fire=["--sidecar-args '[\"--verbose\"]'"],
    quiet=["--sidecar router --grpc-port 50051 --sidecar-args '[\"--verbose\"]'", "--sidecar-args null"])
def _sidecar_args_alone(a):
    if (_pipeline(a) and a.known("sidecar_args") and a.get("sidecar_args") is not None
            and a.known("sidecar") and a.get("sidecar") is None):
        return Hit("sidecar_args")


@sgl_rule(
    "SGL619", "sidecar-args-not-string-array", category=CAT,
    upstream="--sidecar-args must be a JSON array of strings.",
    source="arg_groups/serving_hook.py:401", upstream_id="sidecar-constraints",
    why="The sidecar's arguments are passed to the process as an argv list.",
    fix="Write `--sidecar-args` as a JSON array of strings, e.g. `'[\"--port\", \"9000\"]'`.",
    fire=["--sidecar router --grpc-port 50051 --sidecar-args '[\"--port\", 9000]'",
          "--sidecar router --grpc-port 50051 --sidecar-args '{\"port\": 9000}'"],
    quiet=["--sidecar router --grpc-port 50051 --sidecar-args '[\"--port\", \"9000\"]'"])
def _sidecar_args_shape(a):
    args = a.get("sidecar_args")
    if not (_pipeline(a) and a.known("sidecar_args") and args is not None and a.is_set("sidecar")):
        return None
    if not isinstance(args, list) or not all(isinstance(x, str) for x in args):
        return Hit("sidecar_args")


@sgl_rule(
    "SGL620", "sidecar-empty", category=CAT,
    upstream="--sidecar must not be empty.",
    source="arg_groups/serving_hook.py:404", upstream_id="sidecar-constraints",
    why="An empty `--sidecar` (often a template variable that rendered empty) names no program to start.",
    fix="Give `--sidecar` a command, or drop the flag.",
    fire=["--sidecar '' --grpc-port 50051", "--sidecar ' ' --grpc-port 50051"],
    quiet=["--sidecar router --grpc-port 50051"])
def _sidecar_empty(a):
    v = a.get("sidecar")
    if _pipeline(a) and a.known("sidecar") and isinstance(v, str) and not v.strip():
        return Hit("sidecar")


@sgl_rule(
    "SGL621", "sidecar-with-legacy-grpc", category=CAT,
    upstream="--sidecar requires SGLang's native gRPC server; it cannot be combined with --smg-grpc-mode/--grpc-mode.",
    source="arg_groups/serving_hook.py:406", upstream_id="sidecar-constraints",
    why="The sidecar attaches to the native gRPC server, which legacy SMG gRPC mode replaces.",
    fix="Use `--grpc-port` (native gRPC) instead of `--smg-grpc-mode`/`--grpc-mode`, or drop `--sidecar`.",
    fire=["--sidecar router --smg-grpc-mode"], quiet=["--sidecar router --grpc-port 50051"])
def _sidecar_legacy(a):
    v = a.get("sidecar")
    if _pipeline(a) and a.known("sidecar") and isinstance(v, str) and v.strip() and _legacy_grpc(a):
        blame = "smg_grpc_mode" if a.is_true("smg_grpc_mode") else "grpc_mode"
        return Hit(blame, "sidecar")


@sgl_rule(
    "SGL622", "sidecar-without-grpc-port", category=CAT,
    upstream="--sidecar requires --grpc-port or SGLANG_GRPC_PORT.",
    source="arg_groups/serving_hook.py:411", upstream_id="sidecar-constraints",
    why="The sidecar talks to SGLang over the native gRPC server, which only starts with a gRPC port.",
    fix="Add `--grpc-port` (or set `SGLANG_GRPC_PORT`), or drop `--sidecar`.",
    fire=["--sidecar router"],
    quiet=["--sidecar router --grpc-port 50051", ex("--sidecar router", {"SGLANG_GRPC_PORT": "50051"})],
    env=("SGLANG_GRPC_PORT",))
def _sidecar_no_port(a):
    v = a.get("sidecar")
    port, _ = _grpc_port(a)
    if (_pipeline(a) and a.known("sidecar") and isinstance(v, str) and v.strip() and _legacy_grpc(a) is False
            and port is None):
        return Hit("sidecar")


# -- tokenizer and worker processes -----------------------------------------------------------------------

@sgl_rule(
    "SGL623", "tokenizer-batching-both", category=CAT,
    upstream="Cannot enable both --enable-tokenizer-batch-encode and --enable-dynamic-batch-tokenizer. Please choose "
             "one tokenizer batching approach.",
    source="arg_groups/serving_hook.py:757", upstream_id="tokenizer-batching-exclusive",
    why="Batch encoding and the dynamic batch tokenizer are two alternative tokenizer batching strategies.",
    fix="Keep one of `--enable-tokenizer-batch-encode` and `--enable-dynamic-batch-tokenizer`.",
    fire=["--enable-tokenizer-batch-encode --enable-dynamic-batch-tokenizer"],
    quiet=["--enable-dynamic-batch-tokenizer"])
def _tokenizer_batching(a):
    if _pipeline(a) and a.is_true("enable_tokenizer_batch_encode") and a.is_true("enable_dynamic_batch_tokenizer"):
        return Hit("enable_dynamic_batch_tokenizer", "enable_tokenizer_batch_encode")


def _count_rule(code, name, dest, option, minimum, line, message, what):
    @sgl_rule(code, name, category=CAT, upstream=message, source=f"arg_groups/validation_hook.py:{line}",
              upstream_id="worker-counts",
              why=f"SGLang needs at least {minimum} {what}.",
              fix=f"Set `{option}` to {minimum} or more.",
              fire=[f"{option} {minimum - 1}"], quiet=[f"{option} {minimum + 1}"])
    def check(a):
        if a.lt(dest, minimum):
            return Hit(dest)
    return check


_count_rule("SGL624", "tokenizer-worker-num-below-one", "tokenizer_worker_num", "--tokenizer-worker-num", 1, 273,
            "Tokenizer worker num must >= 1", "tokenizer worker process")
_count_rule("SGL625", "detokenizer-worker-num-below-one", "detokenizer_worker_num", "--detokenizer-worker-num", 1, 274,
            "Detokenizer worker num must >= 1", "detokenizer worker process")
_count_rule("SGL626", "mm-processor-worker-num-negative", "mm_processor_worker_num", "--mm-processor-worker-num", 0,
            275, "Multimodal processor worker num must >= 0", "multimodal processor workers (0 = in-process)")
_count_rule("SGL627", "mm-io-worker-num-negative", "mm_io_worker_num", "--mm-io-worker-num", 0, 276,
            "Multimodal I/O worker num must >= 0", "multimodal I/O workers (0 = in-process)")


@sgl_rule(
    "SGL628", "served-model-name-with-colon", category=CAT,
    upstream="served_model_name cannot contain a colon (':') character. The colon is reserved for the "
             "'model:adapter' syntax used in LoRA adapter specification. Invalid value: '{served_model_name}'",
    source="arg_groups/validation_hook.py:215", upstream_id="served-model-name-no-colon",
    why="Requests name a LoRA adapter as `model:adapter`, so the served model name itself cannot contain ':' "
        "(object-storage URIs such as s3:// are exempt).",
    fix="Choose a `--served-model-name` without ':'.",
    fire=["--served-model-name llama:8b"], quiet=["--served-model-name llama-8b",
                                                  "--served-model-name s3://bucket/llama:8b"],
    notes="When `--served-model-name` is unset SGLang uses `--model-path`, which may legitimately contain ':' "
          "(a GGUF hub reference `owner/repo:QUANT` is rewritten to a local file first); only an explicit name "
          "is checked. The object-storage exemption (`is_runai_obj_uri`) came with 0.5.10: 0.5.6-0.5.9 refuse "
          "`s3://...` names too.")
def _served_name(a):
    v = a.get("served_model_name")
    if (a.explicit("served_model_name") and isinstance(v, str) and ":" in v
            and not (at_least(a, "0.5.10") and v.lower().startswith(("s3://", "gs://", "az://")))):
        return Hit("served_model_name")


# -- scheduling (validation_hook.check_server_args) --------------------------------------------------------

@sgl_rule(
    "SGL629", "priority-scheduling-policy", category=CAT,
    upstream="To use priority scheduling, schedule_policy must be 'fcfs' or 'lof'. '{schedule_policy}' is not "
             "supported.",
    source="arg_groups/validation_hook.py:282", upstream_id="priority-scheduling-policy",
    why="Priority scheduling orders requests within the fcfs or lof policies only.",
    fix="Use `--schedule-policy fcfs` (default) or `lof` with `--enable-priority-scheduling`.",
    fire=["--enable-priority-scheduling --schedule-policy lpm"],
    quiet=["--enable-priority-scheduling --schedule-policy lof --default-priority-value 0"])
def _priority_policy(a):
    if a.is_true("enable_priority_scheduling") and a.not_among("schedule_policy", ("fcfs", "lof")):
        return Hit("schedule_policy", "enable_priority_scheduling")


@sgl_rule(
    "SGL630", "priority-scheduling-without-default-priority", category=CAT, severity=WARNING,
    upstream="--default-priority-value is not set while --enable-priority-scheduling is enabled. Requests without "
             "explicit priority will have priority=None, resulting in priority='None' string labels in Prometheus "
             "metrics.",
    source="arg_groups/validation_hook.py:289", upstream_id="priority-flags-without-priority",
    why="Requests that carry no priority get priority None and the string label 'None' in metrics.",
    fix="Add `--default-priority-value` (e.g. 0).",
    fire=["--enable-priority-scheduling"], quiet=["--enable-priority-scheduling --default-priority-value 0"])
def _priority_no_default(a):
    if a.is_true("enable_priority_scheduling") and a.among("schedule_policy", ("fcfs", "lof")) \
            and a.is_unset("default_priority_value"):
        return Hit("enable_priority_scheduling")


@sgl_rule(
    "SGL631", "priority-preemption-flag-without-priority", category=CAT, severity=WARNING,
    upstream="--disable-priority-preemption has no effect without --enable-priority-scheduling",
    source="arg_groups/validation_hook.py:296", upstream_id="priority-flags-without-priority",
    why="Priority preemption exists only under priority scheduling; the flag is ignored.",
    fix="Add `--enable-priority-scheduling`, or drop `--disable-priority-preemption`.",
    fire=["--disable-priority-preemption"],
    quiet=["--disable-priority-preemption --enable-priority-scheduling --default-priority-value 0"])
def _preemption_without_priority(a):
    if a.is_false("enable_priority_scheduling") and a.is_true("disable_priority_preemption"):
        return Hit("disable_priority_preemption")


@sgl_rule(
    "SGL632", "default-priority-without-priority", category=CAT, severity=WARNING,
    upstream="--default-priority-value has no effect without --enable-priority-scheduling",
    source="arg_groups/validation_hook.py:300", upstream_id="priority-flags-without-priority",
    why="The default priority is only used by priority scheduling; the flag is ignored.",
    fix="Add `--enable-priority-scheduling`, or drop `--default-priority-value`.",
    fire=["--default-priority-value 3"], quiet=["--default-priority-value 3 --enable-priority-scheduling"])
def _default_priority_without_priority(a):
    if a.is_false("enable_priority_scheduling") and a.is_set("default_priority_value"):
        return Hit("default_priority_value")


@sgl_rule(
    "SGL633", "retraction-priority-without-priority", category=CAT,
    upstream="--retraction-policy priority requires --enable-priority-scheduling",
    source="arg_groups/validation_hook.py:304", upstream_id="retraction-priority-needs-priority",
    why="Retracting by priority needs request priorities, which only priority scheduling tracks.",
    fix="Add `--enable-priority-scheduling`, or use `--retraction-policy length` (default).",
    fire=["--retraction-policy priority"],
    quiet=["--retraction-policy priority --enable-priority-scheduling --default-priority-value 0"])
def _retraction_priority(a):
    if a.eq("retraction_policy", "priority") and a.is_false("enable_priority_scheduling"):
        return Hit("retraction_policy")


@sgl_rule(
    "SGL634", "schedule-conservativeness-negative", category=CAT,
    upstream="schedule_conservativeness must be non-negative",
    source="arg_groups/validation_hook.py:314", upstream_id="schedule-conservativeness-nonneg",
    why="The conservativeness factor scales the scheduler's reserved KV budget; it cannot be negative.",
    fix="Use a `--schedule-conservativeness` of 0 or more (default 1.0).",
    fire=["--schedule-conservativeness -0.5"], quiet=["--schedule-conservativeness 0.3"])
def _conservativeness(a):
    if a.lt("schedule_conservativeness", 0):
        return Hit("schedule_conservativeness")


# -- metrics (validation_hook.check_server_args, validate_buckets_rule) -----------------------------------

@sgl_rule(
    "SGL635", "metrics-file-without-dir", category=CAT,
    upstream="--export-metrics-to-file-dir is required when --export-metrics-to-file is enabled",
    source="arg_groups/validation_hook.py:341", upstream_id="metrics-flags",
    why="Metrics exported to files need a directory to write them to.",
    fix="Add `--export-metrics-to-file-dir DIR`.",
    fire=["--export-metrics-to-file"], quiet=["--export-metrics-to-file --export-metrics-to-file-dir /tmp/metrics"])
def _metrics_dir(a):
    if a.is_true("export_metrics_to_file") and a.is_unset("export_metrics_to_file_dir") \
            and a.get("export_metrics_to_file_dir") is None:
        return Hit("export_metrics_to_file")


@sgl_rule(
    "SGL636", "metrics-custom-labels-without-header", category=CAT,
    upstream="Please set --tokenizer-metrics-custom-labels-header when setting "
             "--tokenizer-metrics-allowed-custom-labels.",
    source="arg_groups/validation_hook.py:335", upstream_id="metrics-flags",
    why="Custom metric labels are read from a request header (default `x-custom-labels`); an empty header name "
        "leaves nowhere to read them from.",
    fix="Keep the default `--tokenizer-metrics-custom-labels-header` or give a header name.",
    fire=["--tokenizer-metrics-allowed-custom-labels team --tokenizer-metrics-custom-labels-header ''"],
    quiet=["--tokenizer-metrics-allowed-custom-labels team"])
def _metrics_labels(a):
    if _falsy(a, "tokenizer_metrics_custom_labels_header") and _truthy(a, "tokenizer_metrics_allowed_custom_labels"):
        return Hit("tokenizer_metrics_custom_labels_header", "tokenizer_metrics_allowed_custom_labels")


def _bucket_error(arg_name: str, rule: list):
    """``(kind, message)`` of SGLang's validate_buckets_rule for one rule list, or None."""
    if not rule:
        return None
    kind = rule[0]
    if kind not in ("tse", "default", "custom"):
        return "type", (f"Unsupported {arg_name} rule type: '{kind}'. Must be one of: 'tse', 'default', 'custom'")
    if kind == "tse":
        if len(rule) != 4:
            return "tse-arity", (f"{arg_name} TSE rule requires exactly 4 parameters: ['tse', middle, base, count], "
                                 f"got {len(rule)}")
        try:
            middle, base, count = float(rule[1]), float(rule[2]), int(rule[3])
        except (ValueError, IndexError):
            return "tse-type", (f"{arg_name} TSE rule parameters must be: "
                                f"['tse', <float:middle>, <float:base>, <int:count>]")
        if not base > 1:
            return "tse-base", f"{arg_name} TSE base must be larger than 1, got: {base}"
        if not count > 0:
            return "tse-count", f"{arg_name} TSE count must be positive, got: {count}"
        if not middle > 0:
            return "tse-middle", f"{arg_name} TSE middle must be positive, got: {middle}"
        return None
    if kind == "default":
        if len(rule) != 1:
            return "default-arity", (f"{arg_name} default rule should only have one parameter: ['default'], "
                                     f"got {len(rule)}")
        return None
    if len(rule) < 2:
        return "custom-empty", (f"{arg_name} custom rule requires at least one bucket value: "
                                f"['custom', value1, ...]")
    try:
        values = [float(x) for x in rule[1:]]
    except ValueError:
        return "custom-numeric", f"{arg_name} custom rule bucket values must be numeric"
    if len(set(values)) != len(values):
        return "custom-duplicates", f"{arg_name} custom rule bucket values should not contain duplicates"
    if not all(v >= 0 for v in values):
        return "custom-negative", f"{arg_name} custom rule bucket values should be non-negative"
    return None


def _bucket_rule(code, name, kind, upstream, why, fix, fire, quiet):
    @sgl_rule(code, name, category=CAT, upstream=upstream, source="arg_groups/validation_hook.py:"
              + {"type": "390", "tse-arity": "399", "tse-type": "407", "tse-base": "410", "tse-count": "411",
                 "tse-middle": "412", "default-arity": "415", "custom-empty": "420", "custom-numeric": "426",
                 "custom-duplicates": "427", "custom-negative": "430"}[kind],
              upstream_id="metrics-flags", why=why, fix=fix, fire=fire, quiet=quiet)
    def check(a):
        # check_server_args validates the prompt buckets first and stops at the first error
        for dest, option in (("prompt_tokens_buckets", "--prompt-tokens-buckets"),
                             ("generation_tokens_buckets", "--generation-tokens-buckets")):
            value = a.get(dest)
            if not a.known(dest) or not isinstance(value, list):
                continue
            err = _bucket_error(option, value)
            if err and err[0] == kind:
                return Hit(dest, fmt={"arg_name": option, "value": _bucket_value(kind, value)})
    return check


def _bucket_value(kind, rule):
    """The value SGLang interpolates after 'got' (the list length or the converted parameter)."""
    if kind in ("tse-arity", "default-arity"):
        return len(rule)
    if kind in ("tse-base", "tse-middle"):
        return float(rule[2] if kind == "tse-base" else rule[1])
    if kind == "tse-count":
        return int(rule[3])
    return rule[0]


BUCKETS_WHY = ("The histogram buckets of the token metrics are given as a rule: `default`, `tse MIDDLE BASE COUNT` "
               "(exponential around a middle) or `custom V1 V2 ...`.")
BUCKETS_FIX = "Write the bucket rule as `default`, `tse <middle> <base> <count>` or `custom <v1> <v2> ...`."

_bucket_rule("SGL637", "token-buckets-rule-type", "type",
             "Unsupported {arg_name} rule type: '{value}'. Must be one of: 'tse', 'default', 'custom'",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets linear 10"], ["--prompt-tokens-buckets default"])
_bucket_rule("SGL638", "token-buckets-tse-arity", "tse-arity",
             "{arg_name} TSE rule requires exactly 4 parameters: ['tse', middle, base, count], got {value}",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets tse 1000 2"],
             ["--prompt-tokens-buckets tse 1000 2 10"])
_bucket_rule("SGL639", "token-buckets-tse-parameter-types", "tse-type",
             "{arg_name} TSE rule parameters must be: ['tse', <float:middle>, <float:base>, <int:count>]",
             BUCKETS_WHY, BUCKETS_FIX, ["--generation-tokens-buckets tse 1000 2 ten"],
             ["--generation-tokens-buckets tse 1000 2 10"])
_bucket_rule("SGL640", "token-buckets-tse-base", "tse-base",
             "{arg_name} TSE base must be larger than 1, got: {value}",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets tse 1000 1 10"],
             ["--prompt-tokens-buckets tse 1000 1.5 10"])
_bucket_rule("SGL641", "token-buckets-tse-count", "tse-count",
             "{arg_name} TSE count must be positive, got: {value}",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets tse 1000 2 0"],
             ["--prompt-tokens-buckets tse 1000 2 1"])
_bucket_rule("SGL642", "token-buckets-tse-middle", "tse-middle",
             "{arg_name} TSE middle must be positive, got: {value}",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets tse 0 2 10"],
             ["--prompt-tokens-buckets tse 0.5 2 10"])
_bucket_rule("SGL643", "token-buckets-default-arity", "default-arity",
             "{arg_name} default rule should only have one parameter: ['default'], got {value}",
             BUCKETS_WHY, BUCKETS_FIX, ["--generation-tokens-buckets default 10"],
             ["--generation-tokens-buckets default"])
_bucket_rule("SGL644", "token-buckets-custom-empty", "custom-empty",
             "{arg_name} custom rule requires at least one bucket value: ['custom', value1, ...]",
             BUCKETS_WHY, BUCKETS_FIX, ["--generation-tokens-buckets custom"],
             ["--generation-tokens-buckets custom 100"])
_bucket_rule("SGL645", "token-buckets-custom-not-numeric", "custom-numeric",
             "{arg_name} custom rule bucket values must be numeric",
             BUCKETS_WHY, BUCKETS_FIX, ["--generation-tokens-buckets custom 100 1k"],
             ["--generation-tokens-buckets custom 100 1000"])
_bucket_rule("SGL646", "token-buckets-custom-duplicates", "custom-duplicates",
             "{arg_name} custom rule bucket values should not contain duplicates",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets custom 100 100.0"],
             ["--prompt-tokens-buckets custom 100 200"])
_bucket_rule("SGL647", "token-buckets-custom-negative", "custom-negative",
             "{arg_name} custom rule bucket values should be non-negative",
             BUCKETS_WHY, BUCKETS_FIX, ["--prompt-tokens-buckets custom -1 100"],
             ["--prompt-tokens-buckets custom 0 100"])


@sgl_rule(
    "SGL648", "gc-threshold-arity", category=CAT,
    upstream="When setting gc_threshold, it must contain 1 to 3 integers.",
    source="arg_groups/validation_hook.py:370", upstream_id="gc-threshold-arity",
    why="`--gc-threshold` feeds Python's gc.set_threshold, which takes one to three generation thresholds.",
    fix="Give `--gc-threshold` one to three integers.",
    fire=["--gc-threshold 700 10 10 5"], quiet=["--gc-threshold 700 10 10"])
def _gc_threshold(a):
    v = a.get("gc_threshold")
    if a.known("gc_threshold") and isinstance(v, list) and v and not 1 <= len(v) <= 3:
        return Hit("gc_threshold")


@sgl_rule(
    "SGL649", "kv-canary-sweep-without-canary", category=CAT,
    upstream="--kv-canary-sweep-interval requires --kv-canary in {log, raise}",
    source="arg_groups/validation_hook.py:375", upstream_id="kv-canary-sweep-needs-canary",
    why="The periodic sweep checks KV canaries, which only exist when `--kv-canary` is log or raise (default "
        "none).",
    fix="Add `--kv-canary log` (or raise), or drop `--kv-canary-sweep-interval`.",
    fire=["--kv-canary-sweep-interval 100"], quiet=["--kv-canary-sweep-interval 100 --kv-canary log"])
def _kv_canary(a):
    if a.gt("kv_canary_sweep_interval", 0) and a.eq("kv_canary", "none"):
        return Hit("kv_canary_sweep_interval")


# -- load publishing (validation_hook.check_load_publish_args) ----------------------------------------------

def _load_publish_on(a) -> bool:
    v = a.get("load_publish_endpoint")
    return a.known("load_publish_endpoint") and isinstance(v, str) and v.strip() != "" \
        and v.strip().lower() != "off"


@sgl_rule(
    "SGL650", "load-publish-without-kv-events", category=CAT,
    upstream="--load-publish-endpoint requires --kv-events-config: routers discover the load range through "
             "/server_info's kv_events block, absent without a publisher.",
    source="arg_groups/validation_hook.py:453", upstream_id="load-publish-needs-kv-events",
    why="Routers find the load-publishing range through the KV-events publisher's block in /server_info.",
    fix="Add a `--kv-events-config` with an active publisher, or drop `--load-publish-endpoint`.",
    fire=["--load-publish-endpoint auto"],
    quiet=["--load-publish-endpoint off", "--load-publish-endpoint auto --kv-events-config '{\"publisher\": \"zmq\"}'"])
def _load_publish_no_events(a):
    if _load_publish_on(a) and _falsy(a, "kv_events_config"):
        return Hit("load_publish_endpoint")


def _kv_events(a):
    """The --kv-events-config JSON object, None when unset/unknown, or the JSON error text."""
    v = a.get("kv_events_config")
    if not (a.known("kv_events_config") and isinstance(v, str) and v):
        return None
    try:
        return json.loads(v)
    except (ValueError, RecursionError) as e:
        return e


@sgl_rule(
    "SGL651", "load-publish-kv-events-unparseable", category=CAT,
    upstream="--kv-events-config is not parseable: {error}",
    source="arg_groups/validation_hook.py:461", upstream_id="load-publish-needs-kv-events",
    why="With `--load-publish-endpoint` SGLang parses `--kv-events-config` (a JSON object) at start-up.",
    fix="Write `--kv-events-config` as a JSON object, e.g. `'{\"publisher\": \"zmq\", \"endpoint\": "
        "\"tcp://*:5557\"}'`.",
    fire=["--load-publish-endpoint auto --kv-events-config 'publisher=zmq'"],
    quiet=["--load-publish-endpoint auto --kv-events-config '{\"publisher\": \"zmq\"}'"],
    notes="SGLang's message carries pydantic's validation report; pdlint reports the JSON error instead. Only "
          "text that is not a JSON object is reported (field types are not checked).")
def _kv_events_unparseable(a):
    if not _load_publish_on(a):
        return None
    cfg = _kv_events(a)
    if isinstance(cfg, ValueError):
        return Hit("kv_events_config", fmt={"error": f"invalid JSON ({cfg})"})
    if cfg is not None and not isinstance(cfg, dict):
        return Hit("kv_events_config", fmt={"error": f"a JSON {type(cfg).__name__}, not an object"})


@sgl_rule(
    "SGL652", "load-publish-inactive-kv-events", category=CAT,
    upstream="--load-publish-endpoint needs an active --kv-events-config publisher; got publisher='null' or an empty "
             "endpoint.",
    source="arg_groups/validation_hook.py:463", upstream_id="load-publish-needs-kv-events",
    why="The KV-events publisher defaults to \"null\" (no publishing); load publishing piggybacks on an active "
        "publisher and its endpoint.",
    fix="Set `\"publisher\": \"zmq\"` (and a non-empty endpoint) in `--kv-events-config`.",
    fire=["--load-publish-endpoint auto --kv-events-config '{\"endpoint\": \"tcp://*:5557\"}'",
          "--load-publish-endpoint auto --kv-events-config '{\"publisher\": \"zmq\", \"endpoint\": \"\"}'"],
    quiet=["--load-publish-endpoint auto --kv-events-config '{\"publisher\": \"zmq\"}'"])
def _kv_events_inactive(a):
    cfg = _kv_events(a)
    if not (_load_publish_on(a) and isinstance(cfg, dict)):
        return None
    publisher, endpoint = cfg.get("publisher", "null"), cfg.get("endpoint", "tcp://*:5557")
    if isinstance(publisher, str) and isinstance(endpoint, str) and (publisher == "null" or not endpoint):
        return Hit("kv_events_config", "load_publish_endpoint")


# -- watermarking (validation_hook.check_watermark_server_args) ---------------------------------------------

def _watermark_rule(code, name, upstream, line, why, fix, fire, quiet, env=(), notes=""):
    return sgl_rule(code, name, category=CAT, upstream=upstream, source=f"arg_groups/validation_hook.py:{line}",
                    upstream_id="watermark-config-needs-enable", why=why, fix=fix, fire=fire, quiet=quiet, env=env,
                    notes=notes)


@_watermark_rule(
    "SGL653", "watermark-config-without-watermark",
    "--watermark-config requires --enable-watermark", 37,
    "A watermark configuration does nothing unless watermarking is enabled.",
    "Add `--enable-watermark`, or drop `--watermark-config`.",
    ["--watermark-config '{}'"], ["--enable-watermark --watermark-config '{}'"])
def _watermark_config(a):
    if a.is_set("watermark_config") and a.is_false("enable_watermark"):
        return Hit("watermark_config")


@_watermark_rule(
    "SGL654", "watermark-device-not-cuda",
    "--enable-watermark requires --device cuda, got {device!r}", 43,
    "The watermarking sampler is a CUDA kernel.",
    "Run watermarked servers on CUDA devices (drop a non-CUDA `--device`).",
    ["--enable-watermark --device cpu"], ["--enable-watermark --device cuda"],
    notes="Only an explicit `--device` is checked; otherwise SGLang detects the host's device.")
def _watermark_device(a):
    device = _device(a)
    if a.is_true("enable_watermark") and device is not None and device != "cuda":
        return Hit("device", "enable_watermark", fmt={"device": device})


@_watermark_rule(
    "SGL655", "watermark-with-custom-logit-processor",
    "--enable-watermark is incompatible with --enable-custom-logit-processor", 75,
    "Custom logit processors would change the distribution the watermark is embedded in.",
    "Drop `--enable-custom-logit-processor` or `--enable-watermark`.",
    ["--enable-watermark --enable-custom-logit-processor"], ["--enable-custom-logit-processor"])
def _watermark_logit(a):
    if a.is_true("enable_watermark") and a.is_true("enable_custom_logit_processor"):
        return Hit("enable_custom_logit_processor", "enable_watermark")


@_watermark_rule(
    "SGL656", "watermark-with-diffusion-llm",
    "--enable-watermark is not supported with diffusion LLM", 87,
    "Watermarking works on autoregressive sampling, not on diffusion LLM decoding (`--dllm-algorithm`).",
    "Drop `--enable-watermark` or `--dllm-algorithm`.",
    ["--enable-watermark --dllm-algorithm LowConfidence"], ["--enable-watermark"])
def _watermark_dllm(a):
    if a.is_true("enable_watermark") and a.is_set("dllm_algorithm"):
        return Hit("dllm_algorithm", "enable_watermark")


@_watermark_rule(
    "SGL657", "watermark-speculative-algorithm",
    "--enable-watermark supports speculative algorithms NGRAM, EAGLE, and EAGLE3, got {algorithm!r}", 91,
    "Watermarked sampling is implemented for plain, NGRAM and EAGLE/EAGLE3 (NEXTN runs as EAGLE) speculative "
    "decoding only.",
    "Use NGRAM, EAGLE, EAGLE3 or NEXTN speculation with `--enable-watermark`, or no speculation.",
    ["--enable-watermark --speculative-algorithm STANDALONE --speculative-draft-model-path @TINY@"],
    ["--enable-watermark --speculative-algorithm NGRAM", "--enable-watermark --speculative-algorithm NEXTN"])
def _watermark_spec(a):
    if a.is_true("enable_watermark") and _speculating(a) \
            and a.not_among("speculative_algorithm", ("NGRAM", "EAGLE", "EAGLE3")):
        return Hit("speculative_algorithm", "enable_watermark", fmt={"algorithm": a.get("speculative_algorithm")})


@_watermark_rule(
    "SGL658", "watermark-with-pp-speculation",
    "--enable-watermark is not supported with pipeline-parallel speculative decoding", 96,
    "Watermarked sampling is not wired into the pipeline-parallel speculative decoding paths.",
    "Drop `--enable-watermark`, speculation, or `--pp-size` > 1.",
    [ex("--enable-watermark --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@ --pp-size 2",
        {"SGLANG_ENABLE_PP_SPEC": "1"})],
    ["--enable-watermark --speculative-algorithm NGRAM"],
    notes="Without `SGLANG_ENABLE_PP_SPEC` SGLang rejects PP speculation on a non-prefill server earlier (SGL124).")
def _watermark_pp_spec(a):
    if a.is_true("enable_watermark") and a.gt("pp_size", 1) and _speculating(a):
        return Hit("pp_size", "speculative_algorithm", "enable_watermark")


@_watermark_rule(
    "SGL659", "watermark-with-rejection-sampling",
    "--enable-watermark is incompatible with --speculative-use-rejection-sampling", 101,
    "Speculative rejection sampling draws tokens outside the watermarked sampler.",
    "Drop `--speculative-use-rejection-sampling` or `--enable-watermark`.",
    ["--enable-watermark --speculative-use-rejection-sampling"], ["--speculative-use-rejection-sampling"])
def _watermark_rejection(a):
    if a.is_true("enable_watermark") and a.is_true("speculative_use_rejection_sampling"):
        return Hit("speculative_use_rejection_sampling", "enable_watermark")


@_watermark_rule(
    "SGL660", "watermark-with-rust-server",
    "--enable-watermark is not supported with SGLANG_RUST_SERVER", 106,
    "The Rust server front end (env `SGLANG_RUST_SERVER`) does not carry watermark settings.",
    "Unset `SGLANG_RUST_SERVER` for watermarked servers, or drop `--enable-watermark`.",
    [ex("--enable-watermark", {"SGLANG_RUST_SERVER": "1"})],
    [ex("--enable-watermark", {"SGLANG_RUST_SERVER": "0"}), ex("", {"SGLANG_RUST_SERVER": "1"})],
    env=("SGLANG_RUST_SERVER",))
def _watermark_rust(a):
    if a.is_true("enable_watermark") and _env_bool(a, "SGLANG_RUST_SERVER"):
        return Hit("enable_watermark", note="SGLANG_RUST_SERVER is set in this launch's environment")


# -- ASR, scheduling intervals, sampling masks ----------------------------------------------------------------

@sgl_rule(
    "SGL661", "asr-max-buffer-seconds-not-positive", category=CAT,
    upstream="--asr-max-buffer-seconds must be positive (got {asr_max_buffer_seconds}).",
    source="arg_groups/serving_hook.py:127", upstream_id="asr-positive",
    why="The streaming transcription buffer needs a positive length.",
    fix="Give `--asr-max-buffer-seconds` a positive value (default 60).",
    fire=["--asr-max-buffer-seconds 0"], quiet=["--asr-max-buffer-seconds 30"])
def _asr_buffer(a):
    if _pipeline(a) and a.le("asr_max_buffer_seconds", 0):
        return Hit("asr_max_buffer_seconds")


@sgl_rule(
    "SGL662", "asr-max-concurrent-sessions-not-positive", category=CAT,
    upstream="--asr-max-concurrent-sessions must be positive (got {asr_max_concurrent_sessions}).",
    source="arg_groups/serving_hook.py:132", upstream_id="asr-positive",
    why="At least one transcription session must be allowed.",
    fix="Give `--asr-max-concurrent-sessions` a positive value (default 32).",
    fire=["--asr-max-concurrent-sessions 0"], quiet=["--asr-max-concurrent-sessions 8"])
def _asr_sessions(a):
    if _pipeline(a) and a.le("asr_max_concurrent_sessions", 0):
        return Hit("asr_max_concurrent_sessions")


@sgl_rule(
    "SGL663", "prefill-decode-interval-negative", category=CAT,
    upstream="--prefill-decode-interval must be non-negative.",
    source="arg_groups/validation_hook.py:660", upstream_id="prefill-decode-interval-nonneg",
    why="The interval counts decode steps between prefill batches.",
    fix="Use 0 or more for `--prefill-decode-interval`.",
    fire=["--prefill-decode-interval -1"], quiet=["--prefill-decode-interval 4"])
def _pdi(a):
    if a.lt("prefill_decode_interval", 0):
        return Hit("prefill_decode_interval")


@sgl_rule(
    "SGL664", "prefill-decode-interval-min-bs-negative", category=CAT,
    upstream="--prefill-decode-interval-min-bs must be non-negative.",
    source="arg_groups/validation_hook.py:662", upstream_id="prefill-decode-interval-nonneg",
    why="The minimum batch size for the prefill-decode interval cannot be negative.",
    fix="Use 0 or more for `--prefill-decode-interval-min-bs`.",
    fire=["--prefill-decode-interval-min-bs -1"], quiet=["--prefill-decode-interval-min-bs 8"])
def _pdi_min_bs(a):
    if a.lt("prefill_decode_interval_min_bs", 0):
        return Hit("prefill_decode_interval_min_bs")


@sgl_rule(
    "SGL665", "sampling-mask-max-tokens-not-positive", category=CAT,
    upstream="--sampling-mask-max-tokens must be positive (got {sampling_mask_max_tokens}).",
    source="arg_groups/validation_hook.py:688", upstream_id="sampling-mask-max-tokens-positive",
    why="The sampling-mask buffer is sized by `--sampling-mask-max-tokens`.",
    fix="Give `--sampling-mask-max-tokens` a positive value (default 4096).",
    fire=["--sampling-mask-max-tokens 0"], quiet=["--sampling-mask-max-tokens 1024"])
def _sampling_mask(a):
    if a.le("sampling_mask_max_tokens", 0):
        return Hit("sampling_mask_max_tokens")


@sgl_rule(
    "SGL666", "retired-sampling-mask-env", category=CAT,
    upstream="SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS is no longer supported. Unset it. To enable sampling "
             "masks for disaggregated serving, set SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1 and use the same positive "
             "--sampling-mask-max-tokens value on both prefill and decode servers.",
    source="arg_groups/validation_hook.py:680", upstream_id="sampling-mask-max-tokens-positive",
    why="The environment variable was replaced by `--sampling-mask-max-tokens`; SGLang refuses to start while it "
        "is set, to whatever value.",
    fix="Remove `SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS` from the environment; use "
        "`--sampling-mask-max-tokens` (same value on prefill and decode) and `SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1`.",
    fire=[ex("", {"SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS": "4096"})],
    quiet=[ex("--sampling-mask-max-tokens 4096", {"SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "1"})],
    env=("SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS",))
def _sampling_mask_env(a):
    if "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS" in a.env:
        return Hit(*_env_tok(a, "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS"),
                   note="SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS is set in this launch's environment")


# -- JSON-valued arguments (serving_hook.handle_other_validations / handle_multimodal) ----------------------

@sgl_rule(
    "SGL667", "chat-template-kwargs-not-object", category=CAT,
    upstream="--default-chat-template-kwargs must decode to a JSON object",
    source="arg_groups/serving_hook.py:501", upstream_id="json-arg-shapes",
    why="The default chat-template kwargs are keyword arguments: a JSON object of name/value pairs.",
    fix="Write `--default-chat-template-kwargs` as a JSON object, e.g. `'{\"enable_thinking\": false}'`.",
    fire=["--default-chat-template-kwargs '[\"enable_thinking\"]'"],
    quiet=["--default-chat-template-kwargs '{\"enable_thinking\": false}'"])
def _chat_kwargs(a):
    v = a.get("default_chat_template_kwargs")
    if _pipeline(a) and a.known("default_chat_template_kwargs") and v is not None and not isinstance(v, dict):
        return Hit("default_chat_template_kwargs")


def _json_value(a, dest):
    """A json.loads-typed flag's value; SGLang decodes a value that is still a string once more.  None when
    unset, unknown or not decodable."""
    v = a.get(dest)
    if not a.known(dest):
        return None
    if isinstance(v, str):
        try:
            return json.loads(v)
        except (ValueError, RecursionError):
            return None
    return v


@sgl_rule(
    "SGL668", "limit-mm-data-unknown-modality", category=CAT,
    upstream="Invalid modality '{modality}' in --limit-mm-data-per-request.Allowed modalities are: {allowed}",
    source="arg_groups/serving_hook.py:603", upstream_id="json-arg-shapes",
    why="Per-request multimodal limits are keyed by modality: image, video or audio.",
    fix="Use only \"image\", \"video\" and \"audio\" as keys of `--limit-mm-data-per-request`.",
    fire=["--limit-mm-data-per-request '{\"images\": 4}'"],
    quiet=["--limit-mm-data-per-request '{\"image\": 4, \"video\": 1}'"],
    notes="SGLang prints the allowed modalities from a set, so their order in its message varies between runs.")
def _limit_mm(a):
    v = _json_value(a, "limit_mm_data_per_request")
    if _pipeline(a) and v and isinstance(v, dict):
        for modality in v:
            if modality not in ("image", "video", "audio"):
                return Hit("limit_mm_data_per_request",
                           fmt={"modality": modality, "allowed": "['image', 'video', 'audio']"})


@sgl_rule(
    "SGL669", "preferred-sampling-params-watermark", category=CAT,
    upstream="watermark is not supported in --preferred-sampling-params",
    source="arg_groups/serving_hook.py:619", upstream_id="json-arg-shapes",
    why="Watermarking is a server setting (`--enable-watermark`), not a default sampling parameter.",
    fix="Remove \"watermark\" from `--preferred-sampling-params`; use `--enable-watermark`.",
    fire=["--preferred-sampling-params '{\"watermark\": true}'"],
    quiet=["--preferred-sampling-params '{\"temperature\": 0.6}'"])
def _preferred_watermark(a):
    v = _json_value(a, "preferred_sampling_params")
    if _pipeline(a) and v and isinstance(v, (dict, list, str)) and "watermark" in v:
        return Hit("preferred_sampling_params")


@sgl_rule(
    "SGL670", "mm-process-config-not-object", category=CAT,
    upstream="mm_process_config must be a dict, but got {type}",
    source="arg_groups/serving_hook.py:148", upstream_id="json-arg-shapes",
    why="The multimodal processor configuration is a JSON object with optional image/video/audio sections.",
    fix="Write `--mm-process-config` as a JSON object, e.g. `'{\"image\": {\"max_pixels\": 1003520}}'`.",
    fire=["--mm-process-config '[\"image\"]'"], quiet=["--mm-process-config '{\"image\": {}}'"])
def _mm_process_config(a):
    v = a.get("mm_process_config")
    if _pipeline(a) and a.known("mm_process_config") and v is not None and not isinstance(v, dict):
        return Hit("mm_process_config", fmt={"type": f"<class '{type(v).__name__}'>"})


@sgl_rule(
    "SGL671", "mm-process-config-section-not-object", category=CAT,
    upstream="mm_process_config['{key}'] must be a dict, but got {type}",
    source="arg_groups/serving_hook.py:156", upstream_id="json-arg-shapes",
    why="Each modality section of `--mm-process-config` (image, video, audio) is itself a JSON object.",
    fix="Make the section a JSON object, e.g. `'{\"image\": {\"max_pixels\": 1003520}}'`.",
    fire=["--mm-process-config '{\"image\": 1003520}'"], quiet=["--mm-process-config '{\"image\": {}}'"])
def _mm_process_section(a):
    v = a.get("mm_process_config")
    if not (_pipeline(a) and a.known("mm_process_config") and isinstance(v, dict)):
        return None
    for key in ("image", "video", "audio"):
        if key in v and not isinstance(v[key], dict):
            return Hit("mm_process_config", fmt={"key": key, "type": f"<class '{type(v[key]).__name__}'>"})


@sgl_rule(
    "SGL672", "mm-preprocess-cache-size-negative", category=CAT,
    upstream="mm_preprocess_cache_size_mb must be non-negative",
    source="arg_groups/serving_hook.py:145", upstream_id="mm-cache-size-nonneg",
    why="The multimodal preprocessing cache size is a memory budget in MiB.",
    fix="Use 0 or more for `--mm-preprocess-cache-size-mb`.",
    fire=["--mm-preprocess-cache-size-mb -1"], quiet=["--mm-preprocess-cache-size-mb 0"])
def _mm_cache(a):
    if _pipeline(a) and a.lt("mm_preprocess_cache_size_mb", 0):
        return Hit("mm_preprocess_cache_size_mb")


@sgl_rule(
    "SGL673", "fast-image-processor-conflict", category=CAT,
    upstream="--disable-fast-image-processor conflicts with --image-processor-backend={image_processor_backend}.",
    source="arg_groups/serving_hook.py:260", upstream_id="deprecated-fast-image-processor-conflict",
    why="The deprecated `--disable-fast-image-processor` means `--image-processor-backend pil`; it contradicts "
        "an explicit torchvision backend.",
    fix="Drop `--disable-fast-image-processor` and keep `--image-processor-backend`.",
    fire=["--disable-fast-image-processor --image-processor-backend torchvision"],
    quiet=["--image-processor-backend torchvision"])
def _fast_image_conflict(a):
    if _pipeline(a) and a.is_true("disable_fast_image_processor") \
            and a.not_among("image_processor_backend", ("auto", "pil")):
        return Hit("disable_fast_image_processor", "image_processor_backend")


@sgl_rule(
    "SGL674", "fast-image-processor-deprecated", category=CAT, severity=WARNING,
    upstream="--disable-fast-image-processor is deprecated; use --image-processor-backend=pil instead.",
    source="arg_groups/serving_hook.py:264", upstream_id="deprecated-fast-image-processor-conflict",
    why="`--disable-fast-image-processor` is kept as an alias of `--image-processor-backend pil` and will be "
        "removed.",
    fix="Replace it with `--image-processor-backend pil`.",
    fire=["--disable-fast-image-processor"], quiet=["--image-processor-backend pil"])
def _fast_image_deprecated(a):
    if _pipeline(a) and a.is_true("disable_fast_image_processor") \
            and a.among("image_processor_backend", ("auto", "pil")):
        return Hit("disable_fast_image_processor")


# -- encoder disaggregation and multimodal transport -----------------------------------------------------------

@sgl_rule(
    "SGL675", "prefix-mm-cache-without-encoder-only", category=CAT,
    upstream="--enable-prefix-mm-cache requires --encoder-only to be enabled",
    source="arg_groups/pd_disaggregation_hook.py:306", upstream_id="encoder-only-vs-language-only",
    why="The prefix multimodal cache lives on encoder-only servers (encoder disaggregation).",
    fix="Use `--enable-prefix-mm-cache` on `--encoder-only` servers only.",
    fire=["--enable-prefix-mm-cache"], quiet=["--mm-enable-dp-encoder"],
    notes="`--encoder-only` itself needs a supported multimodal architecture (checked against the model config, "
          "not reported).")
def _prefix_mm_cache(a):
    if _pipeline(a) and a.is_true("enable_prefix_mm_cache") and a.is_false("encoder_only"):
        return Hit("enable_prefix_mm_cache")


@sgl_rule(
    "SGL676", "encoder-only-with-language-only", category=CAT,
    upstream="Cannot set --encoder-only and --language-only together",
    source="arg_groups/pd_disaggregation_hook.py:310", upstream_id="encoder-only-vs-language-only",
    why="Encoder disaggregation splits a multimodal model into an encoder server and a language server; one "
        "server cannot be both.",
    fix="Keep one of `--encoder-only` and `--language-only` per server.",
    fire=["--encoder-only --language-only"], quiet=["--mm-enable-dp-encoder"])
def _encoder_language(a):
    if _pipeline(a) and a.is_true("encoder_only") and a.is_true("language_only"):
        return Hit("language_only", "encoder_only")


@sgl_rule(
    "SGL677", "language-model-only-combination", category=CAT,
    upstream="--language-model-only cannot be combined with {name}",
    source="arg_groups/model_hook.py:1094", upstream_id="language-model-only-combos",
    why="`--language-model-only` loads no multimodal encoder, so encoder-disaggregation and multimodal-encoder "
        "options have nothing to act on.",
    fix="Drop the named option, or `--language-model-only`.",
    fire=["--language-model-only --language-only", "--language-model-only --mm-enable-dp-encoder"],
    quiet=["--mm-enable-dp-encoder"],
    notes="`--language-model-only` is itself accepted for a few architectures only (checked against the model "
          "config, not reported).")
def _language_model_only(a):
    if not (_pipeline(a) and a.is_true("language_model_only")):
        return None
    for dest, name in (("encoder_only", "--encoder-only"), ("language_only", "--language-only"),
                       ("enable_prefix_mm_cache", "--enable-prefix-mm-cache"),
                       ("enable_broadcast_mm_inputs_process", "--enable-broadcast-mm-inputs-process"),
                       ("mm_enable_dp_encoder", "--mm-enable-dp-encoder")):
        if a.is_true(dest):
            return Hit(dest, "language_model_only", fmt={"name": name})
        if not a.known(dest):
            return None


# SGLang 0.5.23 arg_groups/pd_disaggregation_hook.py:353-372: the architectures encoder disaggregation serves
ENCODER_DISAGG_ARCHITECTURES = frozenset((
    "Qwen2VLForConditionalGeneration", "Qwen3VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration",
    "Qwen2AudioForConditionalGeneration", "Qwen2_5OmniForConditionalGeneration", "Dots3NoteForCausalLM",
    "KimiVLForConditionalGeneration", "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "MiMoV2ForCausalLM", "Glm5NextForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
    "MuseSparkForConditionalGeneration",
))
# a word in the model's name that may mean a multimodal sibling the family table does not list (GLM-5-Next's
# Glm5NextForConditionalGeneration under the GLM-5 pattern, a "-VL"/"-Omni" build): pdlint then stays quiet
_MM_NAME = lazyre.compile(r"(?:^|[-.])(?:vl|vision|omni|audio|next|mm)(?=[-.]|$)")
# a text-only Qwen3 name (the Qwen3 family row also lists the Qwen3-VL architectures, which the allow-list holds):
# "Qwen3-<size>B[-A<active>B]" or "Qwen3-Coder-...", not Qwen3.5 / Qwen3-VL / Qwen3-Omni / Qwen3-Embedding / ...
_QWEN3_TEXT = lazyre.compile(r"^(?:[a-z0-9]+-)?qwen3-(?:coder-)?\d+(?:\.\d+)?b(?:-a(\d+(?:\.\d+)?)b)?(?=[-.]|$)")


@sgl_rule(
    "SGL683", "encoder-disaggregation-unsupported-model", category=CAT,
    upstream="Model type {model_arch} is not supported for encoder disaggregation. Supported architectures: "
             "Qwen2VL, Qwen3VL, Qwen3.5, InternS2, Qwen2Audio, Qwen2.5Omni, Dots3-Note, Kimi, MiMoV2, GLM5Next, "
             "MiniMax-M3, MuseSpark.",
    source="arg_groups/pd_disaggregation_hook.py:372", upstream_id="encoder-disagg-model-arch",
    summary="Reports `--language-only` or `--encoder-only` (encoder disaggregation) for a model whose family "
            "pdlint knows from `--model-path` (or `--served-model-name`) and none of whose architectures "
            "SGLang's encoder-disaggregation allow-list holds: a text-only model such as DeepSeek-R1, Llama 3, "
            "Qwen3 / Qwen3-MoE, Qwen3-Next or gpt-oss (SGLang's list holds multimodal architectures only: "
            "Qwen2-VL, Qwen3-VL, Qwen3.5, Kimi-VL, ...).",
    why="Encoder disaggregation moves a multimodal model's vision/audio encoder to separate `--encoder-only` "
        "servers and feeds the embeddings to `--language-only` servers. SGLang checks the checkpoint's "
        "architecture against a fixed list of multimodal models and refuses any other at start-up, so a text-only "
        "model (which has no encoder to split off) never starts with either flag.",
    fix="Drop `--language-only` / `--encoder-only` for a text-only model (plain prefill/decode disaggregation "
        "needs neither), or serve a supported multimodal model (Qwen2.5-VL, Qwen3-VL, Qwen3.5, Kimi-VL, ...).",
    fire=["--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --disaggregation-mode decode "
          "--language-only",
          "--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --language-only",
          "--model-path @TINY_HYBRID@ --served-model-name Qwen/Qwen3-Next-80B-A3B-Instruct --disaggregation-mode "
          "prefill --language-only",
          "--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --encoder-only",
          "--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-30B-A3B --disaggregation-mode prefill "
          "--language-only",
          "--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-Coder-30B-A3B-Instruct --language-only"],
    quiet=["--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --disaggregation-mode decode"],
    notes="Model-dependent: SGLang reads the architecture from the checkpoint's config.json. pdlint infers the "
          "family from the last component of `--model-path` (else `--served-model-name`; docs/models.md) and "
          "reports only a family none of whose architectures is on the list, and whose name has no word of a "
          "multimodal build (`VL`, `Vision`, `Omni`, `Audio`, `Next` outside Qwen3-Next); for a model it cannot "
          "place it stays quiet. Field test rw23/b (differential test against SGLang 0.5.23): "
          "`deepseek-ai/DeepSeek-R1 --disaggregation-mode decode --language-only` was refused by the oracle "
          "(\"Model type DeepseekV3ForCausalLM is not supported for encoder disaggregation\"), and pdlint said "
          "nothing. The Qwen3 family row also lists the Qwen3-VL architectures, so for Qwen3 pdlint reports only a "
          "text-only name (`Qwen3-<size>B`, `Qwen3-<size>B-A<active>B` for Qwen3MoeForCausalLM, "
          "`Qwen3-Coder-...`); field test rw25/b (differential test against SGLang 0.5.23): "
          "`Qwen/Qwen3-30B-A3B --language-only` was refused by the oracle (\"Model type Qwen3MoeForCausalLM is "
          "not supported for encoder disaggregation\") and pdlint said nothing.")
def _encoder_disagg_model(a):
    if not _pipeline(a):
        return None
    flag = next((d for d in ("language_only", "encoder_only") if a.is_true(d)), None)
    if flag is None:
        return None
    from pdlint.engines.sglang.rules.pair import named_family
    from pdlint.models import component
    fam, named_by = named_family(a)
    if fam is None or not fam.architectures:
        return None
    name = a.get("model_path" if named_by == "--model-path" else "served_model_name")
    archs, label = fam.architectures, fam.name
    if fam.name == "Qwen3":
        text = _QWEN3_TEXT.match(component(name))
        if text is None or _MM_NAME.search(component(name)):
            return None  # (a Qwen3-VL / Qwen3-Omni build, or a Qwen3 name pdlint does not place)
        archs, label = (("Qwen3MoeForCausalLM",), "Qwen3-MoE") if text.group(1) else (("Qwen3ForCausalLM",), "Qwen3")
    if any(x in ENCODER_DISAGG_ARCHITECTURES for x in archs):
        return None
    if fam.name not in ("Qwen3-Next", "Qwen3") and _MM_NAME.search(component(name)):
        return None
    return Hit(flag, "model_path", fmt={"model_arch": " or ".join(archs)},
               note=f"{named_by} names {label} ({', '.join(archs)}), a model without the multimodal "
                    "encoder SGLang splits off")


def _mm_transport(a):
    """The multimodal feature transport SGLang validates: the flag, else the legacy env
    SGLANG_USE_CUDA_IPC_TRANSPORT; encoder-only servers use cpu.  None when unknown or automatic."""
    if not (a.known("mm_feature_transport") and a.known("encoder_only")) or a.is_true("encoder_only"):
        return None
    transport = a.get("mm_feature_transport")
    if transport is None and _env_bool(a, "SGLANG_USE_CUDA_IPC_TRANSPORT") is True:
        return "cuda_ipc"
    return transport


@sgl_rule(
    "SGL678", "mm-cuda-ipc-multi-node", category=CAT,
    upstream="--mm-feature-transport=cuda_ipc only supports a single node.",
    source="arg_groups/serving_hook.py:915", upstream_id="mm-feature-transport-topology",
    why="CUDA IPC shares multimodal features between processes of one host.",
    fix="Use `--mm-feature-transport cpu` (or cuda_vmm on MNNVL systems) with `--nnodes` > 1.",
    fire=["--mm-feature-transport cuda_ipc --nnodes 2 --tp-size 2",
          ex("--nnodes 2 --tp-size 2", {"SGLANG_USE_CUDA_IPC_TRANSPORT": "1"})],
    quiet=["--mm-feature-transport cuda_ipc", "--mm-feature-transport cpu --nnodes 2 --tp-size 2"],
    env=("SGLANG_USE_CUDA_IPC_TRANSPORT",),
    notes="On a non-CUDA platform SGLang rejects cuda_ipc earlier (\"requires NVIDIA CUDA\"), not checked.")
def _mm_ipc_nodes(a):
    if _pipeline(a) and _mm_transport(a) == "cuda_ipc" and a.ne("nnodes", 1):
        blame = "mm_feature_transport" if a.is_set("mm_feature_transport") else "nnodes"
        note = "" if a.is_set("mm_feature_transport") else \
            "SGLANG_USE_CUDA_IPC_TRANSPORT in this launch's environment selects cuda_ipc"
        return Hit(blame, "nnodes", note=note)


@sgl_rule(
    "SGL679", "mm-cuda-vmm-with-pipeline-parallelism", category=CAT,
    upstream="--mm-feature-transport=cuda_vmm does not support pipeline parallelism.",
    source="arg_groups/serving_hook.py:895", upstream_id="mm-feature-transport-topology",
    why="The CUDA VMM feature pool is not wired for pipeline-parallel stages.",
    fix="Use `--mm-feature-transport cpu` with `--pp-size` > 1.",
    fire=["--mm-feature-transport cuda_vmm --pp-size 2"], quiet=["--mm-feature-transport cuda_vmm"],
    notes="On a non-CUDA platform SGLang rejects cuda_vmm earlier (\"requires NVIDIA CUDA\"), not checked.")
def _mm_vmm_pp(a):
    if _pipeline(a) and _mm_transport(a) == "cuda_vmm" and a.ne("pp_size", 1):
        return Hit("mm_feature_transport", "pp_size")


# -- model loading and devices ----------------------------------------------------------------------------------

@sgl_rule(
    "SGL680", "weight-cache-with-speculation", category=CAT,
    upstream="--weight-cache-mode is not supported together with speculative decoding (--speculative-algorithm): the "
             "weight cache daemon does not export the draft model's weights. Disable one of them (--weight-cache-mode "
             "off) for this configuration.",
    source="arg_groups/model_path_hook.py:282", upstream_id="weight-cache-vs-spec",
    why="The weight-cache daemon serves the target model's weights only.",
    fix="Use `--weight-cache-mode off` on speculative servers, or drop speculation.",
    fire=["--weight-cache-mode client --speculative-algorithm NGRAM"],
    quiet=["--weight-cache-mode client", "--weight-cache-mode off --speculative-algorithm NGRAM"])
def _weight_cache_spec(a):
    if _pipeline(a) and a.ne("weight_cache_mode", "off") and _speculating(a):
        return Hit("weight_cache_mode", "speculative_algorithm")


@sgl_rule(
    "SGL681", "sampling-backend-intel-xpu-off-xpu", category=CAT,
    upstream="--sampling-backend intel_xpu requires --device xpu, got --device {device}",
    source="arg_groups/validation_hook.py:484", upstream_id="sampling-backend-intel-xpu-device",
    why="The intel_xpu sampling kernels exist only on Intel XPU devices.",
    fix="Drop `--sampling-backend intel_xpu` (or use flashinfer/pytorch) on CUDA servers.",
    fire=["--sampling-backend intel_xpu --device cuda"],
    quiet=["--sampling-backend flashinfer --device cuda",
           "--sampling-backend intel_xpu --device cuda --enable-deterministic-inference"],
    notes="Only an explicit `--device cuda` is checked: SGLang otherwise detects the device, and on CPU/HPU hosts "
          "(or with deterministic inference) it replaces the sampling backend with pytorch first.")
def _sampling_xpu(a):
    if (a.eq("sampling_backend", "intel_xpu") and _device(a) == "cuda"
            and a.is_false("enable_deterministic_inference") and a.is_unset("rl_on_policy_target")):
        return Hit("sampling_backend", "device", fmt={"device": "cuda"})


@sgl_rule(
    "SGL682", "instanttensor-off-cuda", category=CAT,
    upstream="InstantTensor requires a CUDA-compatible device (including CUDA and ROCm); got {device!r}.",
    source="arg_groups/validation_hook.py:325", upstream_id="instanttensor-device",
    why="InstantTensor loads weights straight into GPU memory through CUDA (ROCm reports itself as cuda).",
    fix="Use another `--load-format` (auto, safetensors) on non-CUDA devices.",
    fire=["--load-format instanttensor --device cpu"], quiet=["--load-format instanttensor --device cuda"],
    notes="Only an explicit `--device` is checked; otherwise SGLang detects the host's device.")
def _instanttensor(a):
    device, path = _device(a), a.get("model_path")
    if (a.eq("load_format", "instanttensor") and device is not None and device != "cuda"
            and isinstance(path, str) and "://" not in path):  # object-storage/remote paths switch the format
        return Hit("load_format", "device", fmt={"device": device})
