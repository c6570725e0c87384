/*
 * esbench.corpus._lines: the C twin of nth_newline, prefix_lines and prefix_group in
 * esbench/corpus/lines.py.
 *
 * The Python functions (py_nth_newline, py_prefix_lines, py_prefix_group) are the specification;
 * this file does the same with memchr and memcpy, so that a bulk body costs two passes over its
 * bytes instead of a Python call per document. tests/unit/corpus/test_lines_equivalence.py holds them together.
 */
#include "../_capi.h"

#include <string.h>

/* Clamp a non-negative offset to the buffer's length; -1 with ValueError if negative. */
static int
check_offsets(const char *func, Py_ssize_t start, Py_ssize_t end, int has_end)
{
    if (start < 0 || (has_end && end < 0)) {
        if (has_end)
            PyErr_Format(PyExc_ValueError, "%s: start (%zd) and end (%zd) must not be negative", func,
                         start, end);
        else
            PyErr_Format(PyExc_ValueError, "%s: start (%zd) and end (None) must not be negative", func,
                         start);
        return -1;
    }
    return 0;
}

/*
 * *stop = the end of the search in a buffer of `len` bytes: `end_obj` (None: len) clamped to len,
 * after the offsets are checked as py_nth_newline checks them. 0, or -1 with an exception.
 */
static int
resolve_stop(PyObject *end_obj, Py_ssize_t start, Py_ssize_t len, Py_ssize_t *stop)
{
    int has_end = end_obj != Py_None;
    Py_ssize_t end = 0;
    if (has_end) {
        end = PyLong_AsSsize_t(end_obj);
        if (end == -1 && PyErr_Occurred())
            return -1;
    }
    if (check_offsets("nth_newline", start, end, has_end) < 0)
        return -1;
    *stop = has_end && end < len ? end : len;
    return 0;
}

/*
 * Find the n-th newline (n > 0) of data[start:stop]: the number of newlines still missing, 0 when
 * found, and then *after = the offset just past it.
 */
static Py_ssize_t
find_nth(const char *data, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t n, Py_ssize_t *after)
{
    const char *p = data + start;
    const char *limit = data + stop;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *hit = p < limit ? memchr(p, '\n', (size_t)(limit - p)) : NULL;
        if (hit == NULL)
            return n - i;
        p = hit + 1;
    }
    *after = p - data;
    return 0;
}

static PyObject *
nth_newline(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"buf", "start", "n", "end", NULL};
    Py_buffer view;
    Py_ssize_t start, n, stop, after = 0;
    PyObject *end_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*nn|O:nth_newline", kwlist, &view, &start, &n,
                                     &end_obj))
        return NULL;
    PyObject *result = NULL;
    if (resolve_stop(end_obj, start, view.len, &stop) < 0)
        goto done;
    if (n <= 0) {
        result = Py_BuildValue("(nn)", start - 1, (Py_ssize_t)0);
        goto done;
    }
    Py_ssize_t missing = find_nth(view.buf, start, stop, n, &after);
    result = Py_BuildValue("(nn)", missing ? (Py_ssize_t)-1 : after - 1, missing);
done:
    PyBuffer_Release(&view);
    return result;
}

/*
 * The lines of data[0:len] (len > 0), each with pre in front, as a new bytes object; `lines` is
 * their number, counting a last line without newline, which gets one. NULL with an exception.
 */
static PyObject *
copy_prefixed(const char *data, Py_ssize_t len, Py_ssize_t lines, const char *pre, size_t pre_len)
{
    const char *last = data + len;
    int needs_newline = last[-1] != '\n';
    PyObject *out = PyBytes_FromStringAndSize(NULL, len + needs_newline + lines * (Py_ssize_t)pre_len);
    if (out == NULL)
        return NULL;
    char *w = PyBytes_AS_STRING(out);
    if (pre_len == 0) { /* files with their own action lines: the lines as they are */
        memcpy(w, data, (size_t)len);
        if (needs_newline)
            w[len] = '\n';
        return out;
    }
    for (const char *p = data; p < last;) {
        const char *hit = memchr(p, '\n', (size_t)(last - p));
        const char *next = hit == NULL ? last : hit + 1;
        memcpy(w, pre, pre_len);
        w += pre_len;
        memcpy(w, p, (size_t)(next - p));
        w += next - p;
        p = next;
    }
    if (needs_newline)
        *w = '\n';
    return out;
}

static PyObject *
prefix_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "prefix_lines() takes 4 positional arguments but %zd were given",
                     nargs);
        return NULL;
    }
    if (!PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "prefix_lines() takes bytes for prefix");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred())
        return NULL;
    if (check_offsets("prefix_lines", start, end, 1) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *out;
    if (end > view.len)
        end = view.len;
    if (start >= end) {
        out = PyBytes_FromStringAndSize(NULL, 0);
    }
    else {
        const char *first = (const char *)view.buf + start, *last = (const char *)view.buf + end;
        Py_ssize_t lines = 0;
        for (const char *p = first; p < last; lines++) {
            const char *hit = memchr(p, '\n', (size_t)(last - p));
            p = hit == NULL ? last : hit + 1;
        }
        out = copy_prefixed(first, end - start, lines, PyBytes_AS_STRING(args[3]),
                            (size_t)PyBytes_GET_SIZE(args[3]));
    }
    PyBuffer_Release(&view);
    return out;
}

static PyObject *
prefix_group(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"buf", "start", "n", "prefix", "end", NULL};
    Py_buffer view;
    Py_ssize_t start, n, stop, after = 0;
    PyObject *prefix;
    PyObject *end_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*nnS|O:prefix_group", kwlist, &view, &start, &n,
                                     &prefix, &end_obj))
        return NULL;
    PyObject *result = NULL;
    if (resolve_stop(end_obj, start, view.len, &stop) < 0)
        goto done;
    if (n <= 0) {
        result = Py_BuildValue("(y#nn)", "", (Py_ssize_t)0, start, (Py_ssize_t)0);
        goto done;
    }
    /* Pass 1: the n-th newline; pass 2 (copy_prefixed): the body. */
    Py_ssize_t missing = find_nth(view.buf, start, stop, n, &after);
    if (missing) {
        result = Py_BuildValue("(Onn)", Py_None, (Py_ssize_t)-1, missing);
        goto done;
    }
    PyObject *body = copy_prefixed((const char *)view.buf + start, after - start, n,
                                   PyBytes_AS_STRING(prefix), (size_t)PyBytes_GET_SIZE(prefix));
    if (body != NULL)
        result = Py_BuildValue("(Nnn)", body, after, (Py_ssize_t)0);
done:
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"nth_newline", (PyCFunction)(void (*)(void))nth_newline, METH_VARARGS | METH_KEYWORDS,
     "nth_newline(buf, start, n, end=None) -> (index, missing): see esbench.corpus.lines.py_nth_newline."},
    {"prefix_lines", (PyCFunction)(void (*)(void))prefix_lines, METH_FASTCALL,
     "prefix_lines(buf, start, end, prefix) -> bytes: see esbench.corpus.lines.py_prefix_lines."},
    {"prefix_group", (PyCFunction)(void (*)(void))prefix_group, METH_VARARGS | METH_KEYWORDS,
     "prefix_group(buf, start, n, prefix, end=None) -> (body, next_start, missing): see "
     "esbench.corpus.lines.py_prefix_group."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "esbench.corpus._lines",
    "C twin of esbench.corpus.lines.py_nth_newline and py_prefix_lines.",
    0,
    methods,
};

PyMODINIT_FUNC
PyInit__lines(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", ESBENCH_SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
