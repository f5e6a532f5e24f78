"""SGLang command-line and ``--config`` file rules (SGL001-SGL029).

These are argparse's own errors (and SGLang's config-merge errors), found by
the exact parser in :mod:`pdlint.engines.sglang.argv`; the engine adapter
maps each parse error kind to a rule here.
"""

from pdlint import core_rules as C
from pdlint.model import ERROR, WARNING, AutoFix
from pdlint.rules import Rule, register

_C = "command line"
#: SGL001 / SGL004 in a repository with an SGLang source tree of its own (pdlint.check.FORK_DEFINED)
_FORK_NOTE = ("A warning, saying so, in a repository that holds an SGLang source tree of its own "
              "(`python/sglang/srt/server_args.py` or `sglang/srt/server_args.py`: a fork, whose scripts run that "
              "tree and whose options and choices may differ from the releases' tables).")
_F = "config file"
REPLACE = AutoFix("replace")  # the engine adapter names the replacement (pdlint/engines/sglang/fixes.py)


def _r(code, name, severity, summary, why, fix, example="", example_fixed="", upstream="", category=_C,
       source="", notes="", autofix=None):
    return register(Rule(code, name, severity, summary, why, fix, example, example_fixed, engine="sglang",
                         upstream=upstream, category=category, source=source, notes=notes, autofix=autofix))


UNKNOWN = _r(
    "SGL001", "unknown-flag", ERROR,
    "Reports a flag that SGLang's argument parser does not know (neither a flag nor a unique prefix of one), "
    "with the closest known spellings.",
    "SGLang exits at start-up with `unrecognized arguments`, after the node, image and model were provisioned.",
    "Fix the spelling (see the suggestion), or remove the flag; flags of other engines (vLLM's "
    "`--kv-transfer-config`, Dynamo's wrapper flags) do not belong on an SGLang server.",
    "python -m sglang.launch_server --model-path M --disagregation-mode prefill",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefill",
    upstream="sglang serve: error: unrecognized arguments: {args}", source="argparse", autofix=REPLACE,
    notes=_FORK_NOTE)

AMBIGUOUS = _r(
    "SGL002", "ambiguous-flag-prefix", ERROR,
    "Reports an abbreviated flag that matches several SGLang flags.",
    "argparse accepts any unique prefix of a long flag (`--tp 4` is `--tp-size 4`), but a prefix shared by "
    "several flags stops the server with `ambiguous option`. A prefix that is unique today can become ambiguous "
    "when a release adds a flag.",
    "Write the full flag name.",
    "python -m sglang.launch_server --model-path M --disagg prefill",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefill",
    upstream="ambiguous option: {option} could match {matches}", source="argparse", autofix=REPLACE)

MISSING_VALUE = _r(
    "SGL003", "missing-flag-value", ERROR,
    "Reports a flag that takes a value but is followed by another flag or the end of the command.",
    "argparse stops with `expected one argument`; often a template variable rendered empty, or a value that starts "
    "with `-`, which argparse takes for an option (`--api-key -hunter2`).",
    "Give the flag its value; a value that starts with `-` goes after `=` (`--api-key=-hunter2`).",
    "python -m sglang.launch_server --model-path M --tp-size --disaggregation-mode decode",
    "python -m sglang.launch_server --model-path M --tp-size 2 --disaggregation-mode decode",
    upstream="argument {flag}: expected one argument", source="argparse")

INVALID_CHOICE = _r(
    "SGL004", "invalid-flag-choice", ERROR,
    "Reports a value outside the flag's allowed choices.",
    "argparse stops with `invalid choice` before any resolution runs.",
    "Use one of the listed values.",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefil",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefill",
    upstream="argument {flag}: invalid choice: {value!r} (choose from {choices})", source="argparse", notes=_FORK_NOTE)

INVALID_VALUE = _r(
    "SGL005", "invalid-flag-value", ERROR,
    "Reports a value the flag's type rejects (not an int, not a float, not valid JSON, ...).",
    "argparse stops with `invalid int value` (or the type's own message).",
    "Give a value of the right type.",
    "python -m sglang.launch_server --model-path M --tp-size two",
    "python -m sglang.launch_server --model-path M --tp-size 2",
    upstream="argument {flag}: invalid {type} value: {value!r}", source="argparse")

BOOL_VALUE = _r(
    "SGL006", "value-for-boolean-flag", ERROR,
    "Reports a value written after (or `=`-attached to) a flag that takes none, such as `--enable-metrics true`.",
    "SGLang's boolean flags are store_true switches: `--enable-x true` leaves a stray `true` that argparse "
    "rejects as an unrecognized argument, and `--enable-x=true` is rejected with `ignored explicit argument`. "
    "Neither form can turn a flag off.",
    "Write the bare flag to enable it; omit it to keep it off.",
    "python -m sglang.launch_server --model-path M --enable-metrics true",
    "python -m sglang.launch_server --model-path M --enable-metrics",
    upstream="unrecognized arguments: {value}", source="argparse")

REPEATED = _r(
    "SGL007", "repeated-flag", WARNING,
    "Reports a flag given more than once on one command line (or more than once in one config file).",
    "argparse keeps the last value silently; with different values the earlier one is dead and misleading, and "
    "with equal values one copy is noise that drifts apart later.",
    "Keep one occurrence.",
    "python -m sglang.launch_server --model-path M --disaggregation-bootstrap-port 8995 "
    "--disaggregation-bootstrap-port 8995",
    "python -m sglang.launch_server --model-path M --disaggregation-bootstrap-port 8995",
    notes="A value given in the `--config` file and again on the command line is SGLang's documented override "
          "and is not reported.")

DEPRECATED = _r(
    "SGL008", "deprecated-flag", WARNING,
    "Reports a flag SGLang marks deprecated, with its replacement.",
    "Deprecated flags print a warning at start-up and disappear in a later release, at which point the launch "
    "fails.",
    "Switch to the replacement flag.",
    "python -m sglang.launch_server --model-path M --disable-cuda-graph",
    "python -m sglang.launch_server --model-path M --cuda-graph-backend-decode disabled "
    "--cuda-graph-backend-prefill disabled", autofix=REPLACE)

NOT_IN_VERSION = _r(
    "SGL009", "flag-not-in-version", ERROR,
    "Reports a flag that the SGLang version being judged does not have but another release does (removed, "
    "renamed, or not yet added), naming the releases that have it; behind `python -m dynamo.sglang`, also a "
    "flag of Dynamo's own parsers that the Dynamo release being judged lacks (`--multimodal-worker`, removed "
    "in Dynamo 1.4).",
    "Teams pin different SGLang releases; a flag copied from another release's docs stops this release with "
    "`unrecognized arguments`.",
    "Use the spelling of the release you deploy, or set `engine-version` to the release you run.",
    "python -m sglang.launch_server --model-path M --disaggregation-decode-tp 2   # removed after 0.5.9",
    "python -m sglang.launch_server --model-path M", autofix=REPLACE,
    notes="A flag a release still registers as a `DeprecatedAction` (`--enable-deepep-moe` and "
          "`--enable-ep-moe` in 0.5.3-0.5.4) is reported here too: argparse calls the action, which raises "
          "`ValueError` with the flag's help, so the server stops as surely as with an unknown flag. Such a "
          "release does not count as accepting the flag when an unpinned launch is judged (SGL012).")

MISSING_MODEL = _r(
    "SGL010", "missing-model-path", ERROR,
    "Reports an SGLang server launched without `--model-path` (or `--model`, or `sglang serve MODEL`).",
    "`--model-path` is SGLang's only required argument; argparse stops immediately without it.",
    "Pass the model path (a config file key works for `python -m sglang.launch_server --config`).",
    "python -m sglang.launch_server --disaggregation-mode prefill",
    "python -m sglang.launch_server --model-path /models/qwen --disaggregation-mode prefill",
    upstream="the following arguments are required: --model-path/--model", source="argparse")

UNEXPECTED = _r(
    "SGL011", "unexpected-argument", ERROR,
    "Reports a word on an SGLang command line that is not a flag and not a flag's value.",
    "SGLang takes no positional arguments (except `sglang serve MODEL`); argparse stops with `unrecognized "
    "arguments`. Often a flag value with a space in it, or a value for a flag that takes none.",
    "Remove the word, quote the value it belongs to, or give it its flag.",
    "python -m sglang.launch_server --model-path M --tp-size 2 4",
    "python -m sglang.launch_server --model-path M --tp-size 2",
    upstream="unrecognized arguments: {args}", source="argparse")

UNPINNED = _r(
    "SGL012", "unpinned-release-flags", WARNING,
    "Reports a launch that pins no SGLang release (no image tag, no `engine-version`) and uses a flag the newest "
    "release does not have, or a value that is none of a flag's choices there (`--reasoning-parser nano_v3`, "
    "renamed `nemotron_3` after 0.5.9), while some older releases accept every flag and value it uses: pdlint "
    "judges it against the newest of those and names the range. The same for a `python -m dynamo.sglang` launch whose image tag "
    "names no Dynamo release and that uses a flag of Dynamo's own parsers the newest Dynamo release lacks: it "
    "is judged against the newest Dynamo release that accepts all its flags (and the SGLang that release "
    "installs).",
    "Which release runs decides which flags exist: a flag removed since (`--disaggregation-decode-tp` after "
    "0.5.9) is valid on the image the team actually deploys, and an error against the newest release would be "
    "wrong. Without a pinned release nobody can tell which of the two is meant, and an image rebuilt from "
    "`latest` breaks the launch.",
    "Pin the release: an image tag (`lmsysorg/sglang:v0.5.9`, for Dynamo "
    "`nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.1`) or `engine-version` in `.pdlint.yaml` / "
    "`[tool.pdlint]` (or `--sglang-version`); or update the flags to the newest release.",
    "python -m sglang.launch_server --model-path M --disaggregation-decode-tp 2   # no image tag, no engine-version",
    "python -m sglang.launch_server --model-path M --disaggregation-decode-tp 2   # engine-version = \"0.5.9\"",
    notes="When the newest release reads the option as an abbreviation of several of its flags, the message quotes "
          "the error that release stops with (`--cuda-graph-bs`, removed in 0.5.20: SGLang 0.5.23 says \"ambiguous "
          "option: --cuda-graph-bs could match --cuda-graph-bs-decode, --cuda-graph-bs-prefill\"; a `--config` key "
          "`page`: \"could match --page-size, --paged-experts-num-resident\"), so that an unpinned launch meant for "
          "the newest release is read as the error it is there. Field test rw23/b (differential test against "
          "SGLang 0.5.23): sabreshao/sglang_disagg's `--cuda-graph-bs` launches, refused by the oracle.")

HELP = _r(
    "SGL013", "help-flag-stops-server", ERROR,
    "Reports `-h` / `--help` (or a prefix of it, `--hel`) on an SGLang server command line, or a `help` key in its "
    "`--config` file.",
    "argparse's help action prints the options and exits with status 0 where it stands: no server starts, and a "
    "supervisor or a Kubernetes pod sees a process that ended without an error (a Job completes, a Deployment "
    "restarts it). SGLang's config merger passes a `help` key as `--help VALUE`, whatever the value (`help: false` "
    "too). `sglang serve` prints the help when any word of its command line is `-h` or `--help` (a flag's value, a "
    "word after `--`), before argparse reads anything.",
    "Remove `-h` / `--help` (and the config file's `help` key).",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefill -h",
    "python -m sglang.launch_server --model-path M --disaggregation-mode prefill",
    source="argparse (_HelpAction: print_help, then parser.exit())",
    notes="Field round rw28/b P10 (SGLang 0.5.23's oracle: `-h`, `--help`, `--hel` and a config file's `help: true` "
          "or `help: false` exit 0 without a server; `--help=x` is \"argument -h/--help: ignored explicit argument "
          "'x'\", SGL006). A command line that asks only for help (`python -m sglang.launch_server --help`, an "
          "image's default CMD) is no launch and is not reported; one with other options is a server line "
          "(fix helper w13).")

CFG_UNDERSCORE = _r(
    "SGL020", "config-underscore-key", ERROR,
    "Reports a `--config` file key written with underscores (`tp_size: 2`).",
    "SGLang writes each key verbatim after `--`, so `tp_size` becomes `--tp_size`, which argparse rejects as "
    "unrecognized - even though the same name with dashes is a valid flag.",
    "Write config keys in dash form (`tp-size: 2`).",
    "tp_size: 2", "tp-size: 2", category=_F, source="sglang/srt/utils/server_args_config_parser.py", autofix=REPLACE)

CFG_UNSUPPORTED = _r(
    "SGL021", "config-unsupported-key", ERROR,
    "Reports a `--config` key for a flag that SGLang's config merger refuses (BooleanOptionalAction flags such "
    "as `enable-tf32-matmul`, `lora-paths`, the deprecated `enable-dp-attention` and `disable-cuda-graph`). A "
    "warning in a flag file no launch pdlint read gives to `--config` (a script may turn its keys into command-line "
    "flags, which SGLang accepts).",
    "The merger raises `ValueError: Unsupported config option` before the server starts.",
    "Pass that flag on the command line instead of in the config file.",
    "lora-paths: [a=/loras/a]", "# on the command line: --lora-paths a=/loras/a",
    upstream="Unsupported config option '{key}' with action '{action}'", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py",
    notes="Each release is judged by its own merger (`sglang/srt/server_args_config_parser.py`, from 0.5.19 "
          "`sglang/srt/utils/`; the table `MERGERS` in `pdlint/engines/sglang/config_merge.py`, read from every "
          "wheel 0.5.3-0.5.23). 0.5.23 refuses the dest and every `--long` spelling of an action that is neither "
          "store_true nor single-valued, unless a supported action reads the same key. 0.5.8-0.5.22 refuse by dest "
          "only, every action that is no `_StoreTrueAction` or `_StoreAction` (SGLang's own actions too, e.g. "
          "0.5.14's `DeprecatedAliasStoreAction`): `cuda-graph-max-bs-decode:` is refused there because the alias "
          "`--cuda-graph-max-bs` shares its dest, and the alias key `cuda-graph-bs:` is accepted (field round "
          "rw35/b P1). 0.5.3-0.5.7 refuse no key and pass every boolean as a bare flag or nothing; before 0.5.3 "
          "there is no `--config` (SGL009). Also a key YAML reads as no string (`1: 2`, `true: x`, `~: x`, "
          "`1.5: x`): from 0.5.8 the merger's "
          "`key.replace(\"-\", \"_\")` crashes on it (`AttributeError: 'int' object has no attribute 'replace'`, "
          "SGLang 0.5.23's oracle; field round rw28/b P10), reported at the key, not as the unknown flag `--1` "
          "(0.5.3-0.5.7 pass it as `--1`: SGL001).")

CFG_NULL = _r(
    "SGL022", "config-null-value", WARNING,
    "Reports a `--config` key whose value is `null` (or `~`, or empty).",
    "The merger turns null into the string `None`: `disaggregation-ib-device: null` configures a device named "
    "\"None\", and a numeric flag fails to parse.",
    "Omit the key to keep SGLang's default.",
    "disaggregation-ib-device: null", "# (key omitted)", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_MULTIPLE = _r(
    "SGL023", "multiple-config-files", ERROR,
    "Reports more than one `--config` on one command line.",
    "SGLang accepts exactly one config file and stops otherwise.",
    "Merge the files into one, or pass the extra flags on the command line.",
    "python -m sglang.launch_server --config a.yaml --config b.yaml",
    "python -m sglang.launch_server --config a.yaml",
    upstream="Multiple config files specified! Only one allowed.", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_EQUALS = _r(
    "SGL024", "config-equals-form-ignored", WARNING,
    "Reports `--config=PATH`, and an abbreviation of `--config` (`--conf PATH`, `--confi=PATH`).",
    "argparse accepts the `=` form and any unique prefix (there is a `--config` option), but SGLang's merge only "
    "looks for the exact token `--config`, so the file is silently never read and every flag in it is lost.",
    "Write `--config PATH`: the whole option name, and the path as the next word.",
    "python -m sglang.launch_server --config=prefill.yaml",
    "python -m sglang.launch_server --config prefill.yaml", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_SUFFIX = _r(
    "SGL025", "config-not-yaml", ERROR,
    "Reports a `--config` path whose suffix is not `.yaml`/`.yml`.",
    "SGLang refuses other suffixes before reading the file.",
    "Name the file `*.yaml`.",
    "python -m sglang.launch_server --config prefill.json",
    "python -m sglang.launch_server --config prefill.yaml",
    upstream="Config file must be YAML format, got: {suffix}", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_NOT_MAPPING = _r(
    "SGL026", "config-not-mapping", ERROR,
    "Reports a `--config` file whose top level is not a mapping of flag names to values.",
    "SGLang stops with `Config file must contain a dictionary at root level`.",
    "Write the file as `flag-name: value` lines.",
    "- tp-size: 2", "tp-size: 2",
    upstream="Config file must contain a dictionary at root level", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_MISSING_PATH = _r(
    "SGL027", "config-missing-path", ERROR,
    "Reports `--config` as the last word of a command line.",
    "SGLang stops with `No config file specified after --config flag!`.",
    "Give the config file path.",
    "python -m sglang.launch_server --model-path M --config",
    "python -m sglang.launch_server --model-path M --config prefill.yaml",
    upstream="No config file specified after --config flag!", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

CFG_YAML = _r(
    "SGL028", "config-invalid-yaml", ERROR,
    "Reports a `--config` file that is not valid YAML.",
    "SGLang's `yaml.safe_load` fails before the server starts.",
    "Fix the YAML.", "tp-size: [2", "tp-size: 2", category=_F,
    source="sglang/srt/utils/server_args_config_parser.py")

DISAGG_KEY = _r(
    "SGL029", "disagg-config-key-missing", ERROR,
    "Reports a Dynamo `--disagg-config-key` that names no section of the `--disagg-config` file.",
    "Dynamo loads section K of the file into a temporary SGLang `--config` file; a key the file does not have "
    "stops the worker with `ValueError: Disagg config key 'K' not found`.",
    "Name a top-level key of the file (`prefill`, `decode`, ...), or add that section to the file.",
    category=_F, upstream="Disagg config key '{key}' not found in {path}. Available keys: {keys}",
    source="dynamo/sglang/args.py")

KIND_TO_RULE = {
    "unknown": UNKNOWN, "ambiguous": AMBIGUOUS, "missing-value": MISSING_VALUE, "invalid-choice": INVALID_CHOICE,
    "invalid-type": INVALID_VALUE, "value-for-flag": BOOL_VALUE, "explicit-ignored": BOOL_VALUE,
    "required": MISSING_MODEL, "unknown-positional": UNEXPECTED, "config-underscore": CFG_UNDERSCORE,
    "config-unsupported": CFG_UNSUPPORTED, "config-key-type": CFG_UNSUPPORTED, "config-null": CFG_NULL,
    "config-multiple": CFG_MULTIPLE,
    "config-equals": CFG_EQUALS, "config-suffix": CFG_SUFFIX, "config-not-mapping": CFG_NOT_MAPPING,
    "config-missing-path": CFG_MISSING_PATH, "config-yaml": CFG_YAML, "not-in-version": NOT_IN_VERSION,
    "config-limit": C.LIMIT, "disagg-key-missing": DISAGG_KEY, "help": HELP,
}
