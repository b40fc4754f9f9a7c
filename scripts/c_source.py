"""C source as the checks in scripts/ read it (check_no_abort.sh, check_function_length.sh, check_layers.sh).

blank(text): the text with comments, string literals and char literals replaced by spaces and every
newline kept, so that what remains is code and line numbers still hold.
code_lines(text): blank's lines with every preprocessor line (and its continuations) blanked too.
functions(lines): the function definitions in code_lines, with their first and last lines.
declarations(lines): the functions declared in code_lines: prototypes at file scope, extern ones anywhere.
These read C (and the C-like part of CUDA C++) as its layout is written here, not as a compiler would:
what the preprocessor makes is not seen, so a function that a macro defines is not one of them.
"""
import re
from typing import NamedTuple


# What blank blanks, leftmost first: a comment (an unclosed one runs to the end), a string or char literal
# (a backslash escapes the next character, a newline included; an unclosed one runs to the end, where its
# last character becomes the closing quote).
_BLANKED = re.compile(r"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\])*(?:"|\\?\Z)|'(?:\\.|[^'\\])*(?:'|\\?\Z)""", re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blanked(m):
    s = m.group(0)
    if s[0] == "/":
        return _NOT_NEWLINE.sub(" ", s)
    return s[0] + _NOT_NEWLINE.sub(" ", s[1:-1]) + s[0]  # a literal keeps its quotes


def blank(text):
    """Comments, string and char literals replaced by spaces; newlines kept."""
    return _BLANKED.sub(_blanked, text)


def code_lines(text):
    """The lines of text with comments, literals (blank) and preprocessor lines blanked."""
    # a macro body (#define ... \) is no definition of its own: blank every preprocessor line
    lines, cont = [], False
    for line in blank(text).split("\n"):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            line = ""
        lines.append(line)
    return lines


# Words that take a parenthesised argument in a declaration without being its name.
ATTRIBUTES = {"__attribute__", "__declspec", "__launch_bounds__", "__align__", "alignas", "_Alignas"}
# A brace block that is file scope for what it holds: extern "C" { ... } and namespace x { ... } (blank
# leaves the quotes of "C").
FILE_SCOPE_BLOCK = re.compile(r'(\bextern\s*"\s*"|\bnamespace(\s+\w+)?)$')


def last_group(text):
    """(name, start) of the balanced parenthesised group that text ends with: name is the identifier
    right before it (None when there is none), start the index of the name (or of the group)."""
    i, depth = len(text) - 1, 0
    while i >= 0:
        depth += (text[i] == ")") - (text[i] == "(")
        if depth == 0:
            break
        i -= 1
    if i < 0:
        return None, 0
    m = re.search(r"(\w+)\s*$", text[:i])
    return (m.group(1), m.start(1)) if m else (None, i)


def function_name(head):
    """The name of the function whose definition head is (the text before its body's brace), or None:
    the identifier before the last parameter list, after trailing attributes are taken off."""
    text = head.strip()
    while text.endswith(")"):
        name, start = last_group(text)
        if name not in ATTRIBUTES:
            break
        text = text[:start].rstrip()
    if not text.endswith(")"):
        return None
    name, start = last_group(text)
    before = text[:start]
    if name is None or "=" in before or re.match(r"(typedef|struct|union|enum|class)\b", text):
        return None
    return name


def ends_with_attribute(head):
    text = head.strip()
    return text.endswith(")") and last_group(text)[0] in ATTRIBUTES


class Function(NamedTuple):
    name: str
    first: int  # the line where its definition starts (its return type), 1-based
    last: int  # the line of its closing brace
    head: str  # the text from its first line to its body's brace, blanked as code_lines blanks it


def functions(lines):
    """Each Function of a file's code_lines: a brace block at file scope whose head (what comes before the
    brace since the last ';', '}', blank line or complete macro call) ends with a parameter list.
    A macro call with no ';' after it (DLX_DEF_UNARY(...) on a line of its own) ends a head when a line
    after its ')' starts with anything but the brace of a body, so the next function starts on its own line
    instead of at the macro; a blank line (comments and preprocessor lines count as blank) ends one too."""
    depth, scopes = 0, 0  # depth of the block being read; extern "C" / namespace blocks open around us
    head, head_line, parens, closed_line, start = "", 0, 0, None, None
    for lineno, line in enumerate(lines, 1):
        if depth == 0 and parens == 0 and not line.strip() and not ends_with_attribute(head):
            head, closed_line = "", None  # (an attribute under #if stays: it starts the definition after it)
        for c in line:
            if depth:
                depth += (c == "{") - (c == "}")
                if depth == 0:
                    if start is not None:
                        yield Function(start[0], start[1], lineno, start[2])
                    head, start, closed_line = "", None, None
                continue
            if c == "{":
                if FILE_SCOPE_BLOCK.search(head.strip()):
                    scopes += 1
                else:
                    name = function_name(head) if parens == 0 else None
                    start = (name, head_line, head) if name else None
                    depth = 1
                head, parens, closed_line = "", 0, None
            elif c in ";}":
                if c == "}" and scopes:
                    scopes -= 1
                head, parens, closed_line = "", 0, None
            elif c.isspace():
                head += c
            else:
                if closed_line is not None and lineno > closed_line and not ends_with_attribute(head):
                    head = ""  # what came before was a whole macro call, not the start of this definition
                closed_line = None
                if not head.strip():
                    head, head_line = "", lineno
                head += c
                if c == "(":
                    parens += 1
                elif c == ")" and parens > 0:
                    parens -= 1
                    if parens == 0:
                        closed_line = lineno
        if depth == 0:
            head += "\n"


class Declaration(NamedTuple):
    name: str
    line: int  # the line of its name, 1-based
    is_extern: bool
    is_static: bool


def declarations(lines):
    """Each function Declaration of a file's code_lines that is no definition: a prototype at file scope
    (extern "C" and namespace blocks count as file scope), or a declaration with extern at any depth (a
    block-scope `extern int f(void);` declares a file-scope function too)."""
    depth, scopes, stmt = 0, 0, []  # stmt: (line, char) pairs since the last ; { or }
    for lineno, line in enumerate(lines, 1):
        for c in line + "\n":
            if c not in ";{}":
                stmt.append((lineno, c))
                continue
            text = "".join(ch for _, ch in stmt)
            if c == ";":
                decl = _declaration(text, depth == 0)
                if decl is not None:
                    name, offset = decl
                    yield Declaration(name, stmt[offset][0], bool(re.match(r"\s*extern\b", text)),
                                      bool(re.search(r"\bstatic\b", text[:offset])))
            elif c == "{":
                if depth == 0 and FILE_SCOPE_BLOCK.search(text.strip()):
                    scopes += 1
                else:
                    depth += 1
            elif depth:
                depth -= 1
            elif scopes:
                scopes -= 1
            stmt = []


KEYWORDS = {"return", "sizeof", "case", "goto", "else", "do", "if", "while", "for", "switch", "typedef"}


def _declaration(text, file_scope):
    """(name, index of the name in text) when the statement text declares a function, else None."""
    text = re.sub(r'"\s*"', lambda q: " " * len(q.group()), text)  # extern "C" int f(void);
    if not file_scope and not re.match(r"\s*extern\b", text):
        return None
    m = re.match(r"\s*((?:[A-Za-z_]\w*[\s*]+)+?)([A-Za-z_]\w*)\s*\(", text)
    if m is None or "typedef" in m.group(1).split():
        return None
    words = re.findall(r"\w+", m.group(1))
    if not words or words[-1] in KEYWORDS or m.group(2) in ATTRIBUTES:
        return None
    return m.group(2), m.start(2)
