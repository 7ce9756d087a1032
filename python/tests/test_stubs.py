"""The type stubs (clik/__init__.pyi) against the module: every public name,
class, method and property of the package is in the stubs and nothing more,
and the parameter names agree with the runtime's signatures (the text
signatures of the extension's docstrings, python/clik/_clik_doc.h). Module-level assignments in the stubs (Array,
ImageLike, DTypeLike) are type aliases of the stubs alone."""
import ast
import inspect
import os

import pytest

import clik

STUB = os.path.join(os.path.dirname(clik.__file__), "__init__.pyi")


def stub_tree():
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read(), STUB)


def public(name):
    return not name.startswith("_")


def stub_module():
    """{name: node} of the stubs' public module-level names (aliases left out)."""
    names = {}
    for node in stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return {k: v for k, v in names.items() if public(k)}


def stub_members(cls):
    """{name: node} of a stub class's public members (methods, properties,
    annotated attributes)."""
    members = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            members[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            members[node.target.id] = node
    return {k: v for k, v in members.items() if public(k)}


def runtime_module():
    return {n for n in dir(clik) if public(n) and not inspect.ismodule(getattr(clik, n))}


def runtime_members(cls):
    """A runtime class's own public members: those that no built-in class
    among its bases (object, ValueError, OSError...) gives it."""
    builtin = [b for b in cls.__mro__ if b.__module__ == "builtins"]
    return {n for n in dir(cls) if public(n) and not any(hasattr(b, n) for b in builtin)}


def test_module_names_agree():
    stub, runtime = set(stub_module()), runtime_module()
    assert not runtime - stub, f"in the module, not in __init__.pyi: {sorted(runtime - stub)}"
    assert not stub - runtime, f"in __init__.pyi, not in the module: {sorted(stub - runtime)}"


def test_all_is_in_the_stubs():
    assert set(clik.__all__) <= set(stub_module())


STUB_CLASSES = sorted(k for k, v in stub_module().items() if isinstance(v, ast.ClassDef))


def test_classes_agree():
    runtime = {n for n in runtime_module() if inspect.isclass(getattr(clik, n))}
    assert runtime == set(STUB_CLASSES)


@pytest.mark.parametrize("name", STUB_CLASSES)
def test_class_members_agree(name):
    cls = getattr(clik, name)
    stub = set(stub_members(stub_module()[name]))
    runtime = runtime_members(cls)
    if issubclass(cls, BaseException):
        # status, code and message are set on each instance as it is raised
        runtime |= {"status", "code", "message"} & stub
    assert not runtime - stub, f"{name}: not in __init__.pyi: {sorted(runtime - stub)}"
    assert not stub - runtime, f"{name}: in __init__.pyi only: {sorted(stub - runtime)}"


def stub_parameters(node):
    """The parameter names of a stub function, self left out."""
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return [n for n in names if n not in ("self", "cls")]


def runtime_parameters(fn):
    """The parameter names of a runtime callable, or None where the runtime
    exposes no signature (most functions of the C extension)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return [n for n in names if n not in ("self", "cls")]


def callables():
    """(label, runtime callable, stub node) of every function and method
    the stubs describe with a def."""
    module = stub_module()
    for name, node in module.items():
        if isinstance(node, ast.FunctionDef):
            yield name, getattr(clik, name), node
        elif isinstance(node, ast.ClassDef):
            cls = getattr(clik, name)
            for member, sub in stub_members(node).items():
                if isinstance(sub, ast.FunctionDef) and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in sub.decorator_list):
                    yield f"{name}.{member}", getattr(cls, member), sub
            init = next((s for s in node.body
                         if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is not None and "__init__" in vars(cls):
                yield f"{name}.__init__", cls.__init__, init


# Those whose runtime gives a signature.
SIGNED = [c for c in callables() if runtime_parameters(c[1]) is not None]


@pytest.mark.parametrize("label,fn,node", SIGNED, ids=[c[0] for c in SIGNED])
def test_parameter_names_agree(label, fn, node):
    runtime, stub = runtime_parameters(fn), stub_parameters(node)
    assert runtime == stub, f"{label}: runtime {runtime}, stubs {stub}"


def test_some_signatures_are_checked():
    """The package's methods written in Python have signatures."""
    assert {"Context.lapar_compress", "Context.fusion_stream",
            "LaparSelection.__init__"} <= {c[0] for c in SIGNED}


# ---- the extension's keyword names, from its sources --------------------------------------------

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "clik")


def c_keywords():
    """{(class, method): [keyword names]} of the extension's METH_KEYWORDS
    methods, read from the kwlist of each C function in python/clik (or of
    the helper it hands its arguments to)."""
    import glob
    import re
    text = "\n".join(open(f, encoding="utf-8").read()
                     for f in sorted(glob.glob(os.path.join(SOURCES, "_clik*.c"))))
    bodies = {m.group(1): m.group(2) for m in re.finditer(
        r"^(?:static )?(?:PyObject|int) \*?(\w+)\([^)]*\)\n\{(.*?)\n\}", text, re.S | re.M)}

    def kwlist(fn, depth=0):
        body = bodies.get(fn, "")
        m = re.search(r"kwlist\[\] = \{([^}]*)\}", body)
        if m:
            return re.findall(r'"(\w+)"', m.group(1))
        helper = re.search(r"(\w+)\(c, args, kw", body)
        return kwlist(helper.group(1), depth + 1) if helper and depth < 3 else None

    owners = {"ctx_methods": "Context", "img_methods": "Image", "stream_methods": "FusionStream",
              "trainer_methods": "LaparTrainer", "mod_methods": None}
    found = {}
    for table, cls in owners.items():
        m = re.search(r"PyMethodDef %s\[\] = \{(.*?)\n\};" % table, text, re.S)
        for name, fn in re.findall(r'KW\("(\w+)",\s*(\w+)', m.group(1) if m else ""):
            found[(cls, name)] = kwlist(fn)
    return found


@pytest.mark.skipif(not os.path.exists(os.path.join(SOURCES, "_clik.c")),
                    reason="the extension's sources are not beside the tests")
def test_extension_keywords_agree():
    """Each keyword method of the extension takes the parameter names that
    the stubs give it, in the same order."""
    module = stub_module()
    checked, problems = 0, []
    for (cls, name), keywords in sorted(c_keywords().items(), key=str):
        if name.startswith("_"):
            continue
        node = module.get(name) if cls is None else stub_members(module[cls]).get(name)
        if node is None or keywords is None:
            problems.append(f"{cls}.{name}: no stub" if node is None else f"{cls}.{name}: no kwlist")
            continue
        stub = stub_parameters(node)
        if keywords != stub:
            problems.append(f"{cls}.{name}: keywords {keywords}, stubs {stub}")
        checked += 1
    assert not problems, "; ".join(problems)
    assert checked >= 40
