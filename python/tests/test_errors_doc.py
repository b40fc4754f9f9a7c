"""docs/errors.md cannot drift: its Python columns are produced again here and compared with the file.

The C columns are checked by ctest (errors_catalogue_doc), and scripts/gen_errors.sh --check compares
the whole file; this test also runs in a plain `pytest python/tests`, so a change to an exception or a
message in the Python module fails where it is made."""

import os

import pytest
from peers import need

import errors_catalogue as cat

need("dlx_example", reason="examples/python_ext is not built (scripts/test_python.sh builds it)")

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "errors.md")


def doc_rows():
    with open(DOC) as f:
        lines = f.readlines()
    rows = {}
    for line in lines:
        m = cat.ROW.match(line)
        if m:
            assert m.group(1) not in rows, f"status {m.group(1)} appears twice"
            rows[m.group(1)] = cat.split_row(line)
    return rows


def test_every_status_has_one_row():
    rows = doc_rows()
    assert list(rows) == [t[0] for t in cat.TRIGGERS]
    # values 1 .. DLX_STATUS_COUNT-1 in order, every row with its seven cells
    assert [int(r[1]) for r in rows.values()] == list(range(1, len(rows) + 1))
    assert all(len(r) == 7 for r in rows.values())


@pytest.mark.parametrize("name", [t[0] for t in cat.TRIGGERS])
def test_python_columns_are_current(name):
    code, exc = cat.python_cells(name)
    assert doc_rows()[name][5:] == [code, exc], "docs/errors.md is out of date: run scripts/gen_errors.sh"


def more_rows():
    with open(DOC) as f:
        return {m.group(1): cat.split_row(line) for line in f for m in [cat.MORE_ROW.match(line)] if m}


def test_every_more_input_has_one_row():
    assert list(more_rows()) == [t[0] for t in cat.MORE]


@pytest.mark.parametrize("name", [t[0] for t in cat.MORE])
def test_more_python_columns_are_current(name):
    code, exc = cat.python_cells(name, cat.MORE)
    assert more_rows()[name][5:] == [code, exc], "docs/errors.md is out of date: run scripts/gen_errors.sh"
