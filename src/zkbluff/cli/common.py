"""What every command group shares: typed errors to exit codes, JSON files, progress."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable, NoReturn, Optional, TypeVar

import click

from zkbluff.cli_fast import working  # noqa: F401  (beside cli_start, no click: transcript verify runs it too)
from zkbluff.errors import MalformedInput, ZkbluffError
from zkbluff.protocol.fixed_randomness import seeded_randomness  # noqa: F401  (`play --seed`: a practice match)

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def typed_errors(fn: F) -> F:
    """Turn zkbluff errors into a one-line message and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ZkbluffError as exc:
            fail(str(exc), exc.exit_code)
        except BrokenPipeError:  # the reader went away (`| head`): nothing more to say
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except OSError as exc:  # a file that cannot be read or written: malformed input, exit 2
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"{where}{exc.strerror or exc}", 2)
        except (EOFError, click.Abort):  # stdin closed (or Ctrl-C) at a prompt: a usage error
            fail("no input (standard input closed)", 2)

    return wrapper  # type: ignore[return-value]


def parse_field_arg(text: str, what: str) -> int:
    """A decimal or 0x-hex field element below r; anything else is a usage error."""
    from zkbluff.field import r

    try:
        v = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        raise click.BadParameter(f"{what}: expected a decimal or 0x-hex integer, got {text!r}") from None
    if not 0 <= v < r:
        raise click.BadParameter(f"{what}: expected 0 <= x < r, got {text}")
    return v


def progress() -> Optional[Callable[[str], None]]:
    """A progress callback printing to stderr when it is a terminal, else None."""
    if sys.stderr.isatty():
        return lambda msg: click.echo(msg, err=True)
    return None


def read_json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MalformedInput(f"{what} {path}: {exc}") from None


def write_json(path: str, obj: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def emit(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=1, ensure_ascii=False))


def load_keys_with_progress(key_ids: list[str], what: str = "proving keys") -> None:
    """Load (or make, the first time) the keys a command will need, with a progress bar on
    a terminal: key loading on a slow backend takes seconds to minutes, and a person should
    see it move. Off a terminal it prints nothing; the keys land in the shared in-memory
    cache, so the provers that ask for them next get them at once."""
    from zkbluff.curve import get_backend
    from zkbluff.statements.keys import load_keys

    quiet = not sys.stderr.isatty()
    label = f"{what} ({get_backend().name} backend)"
    with click.progressbar(key_ids, label=label, file=sys.stderr, show_pos=True,
                           item_show_func=lambda k: k or "", hidden=quiet) as bar:
        for key_id in bar:
            load_keys(key_id, say=(lambda m: None) if not quiet else (lambda m: click.echo(m, err=True)))

