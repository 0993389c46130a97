"""The `cardtable` command's contract: every group exists, answers --help, and bad usage exits 2."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from table_controller.cli import build_parser, main

GROUPS = ["run", "demo", "replay", "schema", "history", "sim", "shoe", "vision", "bench"]

SUBCOMMANDS = [
    ["run"], ["demo"], ["replay"], ["schema"], ["history", "export"], ["history", "verify"],
    ["sim", "shoe"], ["sim", "camera"], ["shoe", "status"], ["shoe", "shuffle"], ["shoe", "verify"],
    ["shoe", "deal"], ["vision", "identify"], ["vision", "calibrate-deck"], ["vision", "watch"], ["bench"],
]


def test_top_level_help_lists_every_group(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for group in GROUPS:
        assert f"    {group} " in out, group


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=" ".join)
def test_every_subcommand_answers_help(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    assert "usage: cardtable " + " ".join(words) in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [["no-such-group"], ["shoe", "deal"], ["shoe", "deal", "--port", "loop://", "--count", "many"],
     ["sim", "shoe"], ["history", "export", "--format", "pdf", "--out", "x"], ["schema", "nothing"],
     ["run", "--port", "eighty"]],
    ids=" ".join,
)
def test_bad_usage_exits_2_with_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0]


def _all_commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((*prefix, name))
                found.extend(_all_commands(sub, (*prefix, name)))
    return found


ALL_COMMANDS = _all_commands(build_parser())


def test_the_contract_commands_all_exist() -> None:
    assert {tuple(words) for words in SUBCOMMANDS} <= set(ALL_COMMANDS)


@pytest.mark.parametrize("words", ALL_COMMANDS, ids=" ".join)
def test_every_command_in_the_tree_answers_help(words: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cardtable " + " ".join(words))


@pytest.mark.parametrize("words", ALL_COMMANDS, ids=" ".join)
def test_every_command_refuses_an_unknown_flag_with_exit_2(words: tuple[str, ...],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*words, "--no-such-flag-anywhere"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error:" in err[0]


def test_group_without_action_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["shoe"]) == 2
    assert "status" in capsys.readouterr().err


def test_parser_builds_without_side_effects() -> None:
    assert build_parser().prog == "cardtable"


def test_console_script_runs_as_a_module() -> None:
    proc = subprocess.run([sys.executable, "-m", "table_controller.cli", "--help"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0
    assert "replay" in proc.stdout
