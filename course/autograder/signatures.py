"""A kernel's parameter list as the checker handles it: ((name, "pointer" | "int" | "float"), ...).

An exercise kind (course.autograder.kind_base) declares its list; exercise.yaml writes it out as C
("const float* P", "int M", "float alpha"), which parse_signature reads back so that the schema can
compare the two; signature_text writes the line a learner copies. Imports nothing from the package.
"""
from __future__ import annotations

C_TYPES = {"pointer": "float*", "int": "int", "float": "float"}


def signature_text(signature: tuple, entry: str, read_only=()) -> str:
    """extern "C" __global__ void entry(const float* A, ...) as a learner writes it; the pointers named in
    `read_only` (inputs the kernel only reads) are written `const float*`."""
    params = ", ".join(("const " if kind == "pointer" and name in read_only else "") + f"{C_TYPES[kind]} {name}"
                       for name, kind in signature)
    return f'extern "C" __global__ void {entry}({params})'


def parse_signature(value) -> tuple | None:
    """exercise.yaml's signature: a list of "type name" strings ("const float* P", "int M", "float alpha")."""
    if not isinstance(value, list) or not value:
        return None
    out = []
    for item in value:
        if not isinstance(item, str):
            return None
        words = item.replace("*", " * ").split()
        if not words:
            return None
        name = words[-1]
        kind = "pointer" if "*" in words else {"int": "int", "float": "float"}.get(words[-2] if len(words) > 1 else "")
        if kind is None or not name.isidentifier():
            return None
        out.append((name, kind))
    return tuple(out)
