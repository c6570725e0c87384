"""The template compiler and the column-wise body builder of ``templated-request``."""

from __future__ import annotations

import json
import random

import pytest

from esbench.driver.worker.params.template import Expander, RepeatedBody, check_names, compile_template
from esbench.driver.worker.params.template_gen import constant_generator, make_generator
from esbench.driver.worker.params.template_vars import VariableSpec, VariableType
from esbench.exceptions import ConfigError


def test_compile_splits_literals_and_slots():
    t = compile_template('{"a": "$[[ x ]]", "b": [$RDICT], "c": $RNUM, "d": $RNUM(7)} 100%')
    assert t.slots == ("x", "$RDICT", "$RNUM(256)", "$RNUM(7)")
    assert t.literals == ('{"a": "', '", "b": [', '], "c": ', ', "d": ', "} 100%")
    assert not t.constant


def test_constant_template_and_empty_placeholder():
    assert compile_template("plain").constant
    with pytest.raises(ConfigError, match="empty placeholder"):
        compile_template("$[[ ]]")
    with pytest.raises(ConfigError, match="m > 0"):
        compile_template("$RNUM(0)")


def test_unknown_variable_and_rdict_without_dictionary_are_errors():
    with pytest.raises(ConfigError, match=r"unknown variable \$\[\[nope\]\].*Defined variables: a"):
        check_names(compile_template("$[[nope]]"), {"a"}, where="The body")
    with pytest.raises(ConfigError, match="no dictionary"):
        check_names(compile_template("[$RDICT]"), {"a"}, where="The body")


class _Counter:
    uniform = False

    def __init__(self) -> None:
        self.n = 0

    def column(self, n):
        out = [str(self.n + i) for i in range(n)]
        self.n += n
        return out

    def one(self):
        return self.column(1)[0]


def test_repeated_body_fresh_value_per_occurrence_and_line_variables():
    t = compile_template(
        '{"a":"$[[c]]","b":"$[[c]]","r":"$[[row]]","r2":"$[[row]]","k":"$[[batch]]","p":"100%"}\n'
    )
    gens = {"c": _Counter(), "u": _Counter(), "z": constant_generator("Z")}
    body = RepeatedBody(t, 3, {"row": "u"}).build(gens, {"batch": "B"})
    lines = [json.loads(x) for x in body.splitlines()]
    assert len(lines) == 3
    # every occurrence of a variable is a fresh value (Loadgen), in line order
    assert [(d["a"], d["b"]) for d in lines] == [("0", "3"), ("1", "4"), ("2", "5")]
    # a body-line variable has one value per line, shared by its occurrences
    assert [d["r"] for d in lines] == ["0", "1", "2"] and all(d["r"] == d["r2"] for d in lines)
    # a runtime (per request) variable is the same on every line; % survives formatting
    assert {d["k"] for d in lines} == {"B"} and lines[0]["p"] == "100%"


def test_repeated_body_uniform_generators_written_once():
    t = compile_template("$[[z]]-$[[c]];")
    body = RepeatedBody(t, 4, {}).build({"z": constant_generator("5%"), "c": _Counter()}, {})
    assert body == "5%-0;5%-1;5%-2;5%-3;"


def test_constant_body_repeats():
    assert RepeatedBody(compile_template("x\n"), 3, {}).build({}, {}) == "x\nx\nx\n"


def test_expander_one_prefers_scope():
    spec = VariableSpec(name="v", type=VariableType.LIST, lines=("only",))
    gens = {"v": make_generator(spec, {"v": spec}, index=0, clients=1, rng=random.Random(1))}
    exp = Expander(gens)
    assert exp.one(compile_template("/i/$[[v]]/$[[r]]"), {"r": "R"}) == "/i/only/R"
