"""Request templates: ``$[[name]]`` placeholders (INFINI Loadgen) and ``$RDICT``/``$RNUM`` (esperf).

A template is compiled once per task into literal segments and slots
(:func:`compile_template`); a client then expands it with a :class:`Expander` built from its
variable generators. Bulk bodies (a line template repeated ``body_repeat_times`` times) are built
column-wise: each slot yields its ``n`` values in one call, the values are interleaved in C
(``zip``/``chain``) and formatted with one ``%`` operation on the repeated line format. That keeps
the per-value cost to roughly one list item, which is what lets one core build a few hundred
thousand bulk lines per second.

Placeholders:

* ``$[[name]]``: a variable (:mod:`.template_vars`), a runtime variable, or ``env.NAME``.
  Every occurrence of a variable gets a fresh value, as in Loadgen (two ``$[[uuid]]`` in a line
  are two ids); runtime variables keep one value per request (``runtime_variables``) or per body
  line (``runtime_body_line_variables``).
* ``$RDICT``: a random line of the dictionary file (esperf's ``-d``), fresh per occurrence.
* ``$RNUM``: a random integer in [0, 255]; ``$RNUM(m)``: in [0, m-1] (esperf).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from itertools import chain

from esbench.driver.worker.params.template_gen import Generator
from esbench.exceptions import ConfigError

RDICT = "$RDICT"
_PLACEHOLDER = re.compile(r"\$\[\[(.*?)\]\]|\$RDICT|\$RNUM\((\d+)\)|\$RNUM")


@dataclass(frozen=True, slots=True)
class CompiledTemplate:
    """A template split at its placeholders.

    Attributes:
        literals: the text around the slots; ``len(literals) == len(slots) + 1``.
        slots: the placeholder of each slot: a variable name, ``"$RDICT"``, or ``"$RNUM(m)"``.
    """

    literals: tuple[str, ...]
    slots: tuple[str, ...]

    @property
    def constant(self) -> bool:
        """True when the template has no placeholder."""
        return not self.slots

    def names(self) -> frozenset[str]:
        """The distinct placeholders."""
        return frozenset(self.slots)


def compile_template(text: str) -> CompiledTemplate:
    """Split ``text`` at its placeholders (see module doc); ``$[[ name ]]`` is trimmed.

    Raises:
        ConfigError: an empty ``$[[]]`` or ``$RNUM(0)``.
    """
    literals: list[str] = []
    slots: list[str] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(text):
        literals.append(text[pos : match.start()])
        pos = match.end()
        name, modulus = match.group(1), match.group(2)
        if name is not None:
            name = name.strip()
            if not name:
                raise ConfigError(
                    f"The template has an empty placeholder '$[[]]' at character {match.start()}."
                )
            slots.append(name)
        elif modulus is not None:
            if int(modulus) <= 0:
                raise ConfigError("$RNUM(m) needs m > 0 (values are drawn from 0 to m-1).")
            slots.append(f"$RNUM({int(modulus)})")
        elif match.group(0) == RDICT:
            slots.append(RDICT)
        else:
            slots.append("$RNUM(256)")
    literals.append(text[pos:])
    return CompiledTemplate(tuple(literals), tuple(slots))


def check_names(template: CompiledTemplate, known: Collection[str], *, where: str) -> None:
    """Fail for placeholders that name nothing.

    Raises:
        ConfigError: an unknown ``$[[name]]`` (message lists the known names), or ``$RDICT``
            without a dictionary.
    """
    known_set = set(known)
    for name in template.slots:
        if name in known_set or name.startswith("$RNUM("):
            continue
        if name == RDICT:
            raise ConfigError(
                f"{where} uses $RDICT, but no dictionary was given: pass -d/--dictionary FILE (one value "
                f"per line), or 'dictionary' in the operation."
            )
        names = ", ".join(sorted(n for n in known_set if n != RDICT)) or "none"
        raise ConfigError(
            f"{where} uses the unknown variable $[[{name}]]. Defined variables: {names}. Define it under "
            f"'variables' (or as a runtime variable), or fix the name."
        )


def _format_of(template: CompiledTemplate) -> str:
    return "%s".join(part.replace("%", "%%") for part in template.literals)


class Expander:
    """Expands compiled templates for one client.

    Args:
        generators: the client's generators by placeholder (variables, ``$RDICT``, ``$RNUM(m)``).
    """

    def __init__(self, generators: Mapping[str, Generator]) -> None:
        self._generators = dict(generators)

    def one(self, template: CompiledTemplate, scope: Mapping[str, str]) -> str:
        """``template`` with every slot filled; ``scope`` (runtime variables) is looked up first."""
        if template.constant:
            return template.literals[0]
        parts = [template.literals[0]]
        gens = self._generators
        for name, literal in zip(template.slots, template.literals[1:], strict=True):
            value = scope.get(name)
            parts.append(value if value is not None else gens[name].one())
            parts.append(literal)
        return "".join(parts)


class RepeatedBody:
    """A line template repeated ``times`` times, built column-wise (see module doc).

    Args:
        template: the compiled line template.
        times: ``body_repeat_times`` (>= 1).
        line_variables: ``runtime_body_line_variables``: name -> source variable; one value per
            line shared by the line's occurrences.
    """

    def __init__(self, template: CompiledTemplate, times: int, line_variables: Mapping[str, str]) -> None:
        self.template = template
        self.times = times
        self.line_variables = dict(line_variables)
        self._format = _format_of(template) * times if not template.constant else ""
        self._constant = template.literals[0] * times if template.constant else ""

    def build(self, generators: Mapping[str, Generator], scope: Mapping[str, str]) -> str:
        """The body text.

        Values that are the same on every line (runtime variables, the clock, constants) are
        written into the line format once per request; the others become columns.

        Args:
            generators: the client's generators by placeholder.
            scope: the request's runtime variables (name -> value).
        """
        if self.template.constant:
            return self._constant
        n = self.times
        line_columns: dict[str, list[str]] = {}
        columns: list[list[str]] = []
        literals = self.template.literals
        parts: list[str] = [literals[0].replace("%", "%%")]
        uniform = False
        for name, literal in zip(self.template.slots, literals[1:], strict=True):
            value: str | None = None
            column: list[str] | None = None
            if name in self.line_variables:
                column = line_columns.get(name)
                if column is None:
                    source = self.line_variables[name]
                    value = scope.get(source)
                    if value is None:
                        column = line_columns[name] = generators[source].column(n)
            else:
                value = scope.get(name)
                if value is None:
                    gen = generators[name]
                    if gen.uniform:
                        value = gen.one()
                    else:
                        column = gen.column(n)
            # Exactly one of value and column is set: a per-request value or a column per line.
            if column is not None:
                columns.append(column)
                parts.append(literal.replace("%", "%%"))
            elif value is not None:
                uniform = True
                parts[-1] += value.replace("%", "%%") + literal.replace("%", "%%")
        fmt = "%s".join(parts) * n if uniform else self._format
        if not columns:
            return fmt.replace("%%", "%")
        if len(columns) == 1:
            return fmt % tuple(columns[0])
        return fmt % tuple(chain.from_iterable(zip(*columns, strict=True)))
