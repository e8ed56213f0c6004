"""``dynabase completion``: the generated scripts complete commands, sub-commands, options and choices."""

from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest

from dynabase.cli.completion import script
from dynabase.cli.main import main, tree


def complete_bash(*words: str) -> list[str]:
    """What the bash script offers for ``dynabase WORDS...`` (the last word is the one being completed)."""
    line = ["dynabase", *words]
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in line)
    program = f'{script("bash", tree())}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(line) - 1}\n_dynabase_complete\nprintf "%s\\n" "${{COMPREPLY[@]}}"'
    out = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True, timeout=30)
    return [w for w in out.stdout.splitlines() if w]


def test_a_command_prefix_completes_to_the_command() -> None:
    assert complete_bash("se") == ["serve"]
    assert set(complete_bash("im")) == {"import", "import-workbench"}
    assert set(complete_bash("")) == set(tree().subcommands)


def test_a_subcommand_completes_its_own_options() -> None:
    assert set(complete_bash("serve", "--p")) == {"--port", "--per-key-db"}
    assert "--until-idle" in complete_bash("streams", "run", "--u")
    assert complete_bash("streams", "tail", "--fol") == ["--follow"]
    assert "--port" not in complete_bash("validate", "--")


def test_nested_commands_and_choices() -> None:
    assert complete_bash("streams", "") == ["tail", "run"]
    assert complete_bash("iac", "SCHEMA", "--format", "c") == [
        "cloudformation",
        "cloudformation-yaml",
        "create-table",
    ]
    assert complete_bash("completion", "") == ["bash", "zsh", "fish"]


def test_an_option_value_without_choices_is_left_to_file_names() -> None:
    assert complete_bash("serve", "--db", "") == []  # `complete -o default` then completes file names


def test_every_command_and_option_is_in_each_script() -> None:
    scripts = {shell: script(shell, tree()) for shell in ("bash", "zsh", "fish")}
    for cmd in tree().walk():
        for shell, text in scripts.items():
            if cmd.path:
                assert cmd.path[-1] in text, (shell, cmd.name)
            for option in cmd.options:
                assert any(s.lstrip("-") in text for s in option.strings), (shell, cmd.name, option.strings)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_script_parses_in_its_shell(shell: str) -> None:
    binary = shutil.which(shell)
    if binary is None:
        pytest.skip(f"{shell} is not installed")
    check = ["-n"] if shell == "zsh" else ["--no-execute"]
    subprocess.run([binary, *check], input=script(shell, tree()), text=True, check=True, timeout=30)


def test_the_command_prints_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "bash"]) == 0
    assert capsys.readouterr().out == script("bash", tree())
    with pytest.raises(SystemExit):
        main(["completion", "tcsh"])


def test_fish_completes_commands_and_options() -> None:
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed")
    program = 'source $argv[1]; complete -C "dynabase se"; complete -C "dynabase streams tail --fo"'
    with tempfile.NamedTemporaryFile("w", suffix=".fish") as f:
        f.write(script("fish", tree()))
        f.flush()
        out = subprocess.run(
            [fish, "-c", program, f.name], capture_output=True, text=True, check=True, timeout=30
        )
    offered = [line.split("\t")[0] for line in out.stdout.splitlines()]
    assert offered == ["serve", "--follow", "--format"]
