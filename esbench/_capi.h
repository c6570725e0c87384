/*
 * Helpers shared by esbench's C extensions (esbench.metrics._accumulator, esbench.driver.transport._connection):
 * interned names and the binding of a vectorcall's arguments to parameter names.
 */
#ifndef ESBENCH_CAPI_H
#define ESBENCH_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* The digest of the sources the module was built from: setup.py defines it, the module exports it as
 * SOURCE_DIGEST, and esbench/_compiled.py runs the Python twin when the checkout's sources differ. */
#ifndef ESBENCH_SOURCE_DIGEST
#define ESBENCH_SOURCE_DIGEST ""
#endif

/* Shared by the files of one extension module only. */
#define ESB_HIDDEN __attribute__((visibility("hidden")))

/* *slot = the interned str name; 0, or -1 with an exception. */
static inline int
esb_intern(PyObject **slot, const char *name)
{
    *slot = PyUnicode_InternFromString(name);
    return *slot == NULL ? -1 : 0;
}

/* slots[i] = the interned str names[i], for i < count; 0, or -1 with an exception. */
static inline int
esb_intern_all(PyObject **slots, const char *const *names, int count)
{
    for (int i = 0; i < count; i++) {
        if (esb_intern(&slots[i], names[i]) < 0)
            return -1;
    }
    return 0;
}

/*
 * Bind a vectorcall's arguments as Python binds them to `def func(names[0], ..., names[count-1])`
 * where the first `positional` parameters may be given positionally and the rest by keyword only,
 * and the first `required` must be given: out[i] is the argument of names[i] (borrowed) or NULL.
 * names are interned, so a caller's keyword (interned by its code object) usually matches by
 * pointer. 0, or -1 with a TypeError worded like Python's.
 */
static inline int
esb_bind(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
         PyObject *const *names, int count, int positional, int required, PyObject **out)
{
    for (int i = 0; i < count; i++)
        out[i] = NULL;
    if (nargs > positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given", func,
                     positional, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int j = 0;
        while (j < count && name != names[j])
            j++;
        for (int k = 0; j == count && k < count; k++) {
            int eq = PyUnicode_Compare(name, names[k]);
            if (eq == -1 && PyErr_Occurred())
                return -1;
            if (eq == 0)
                j = k;
        }
        if (j == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", func, name);
            return -1;
        }
        if (out[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", func, name);
            return -1;
        }
        out[j] = args[nargs + i];
    }
    for (int i = 0; i < required; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%U'", func, names[i]);
            return -1;
        }
    }
    return 0;
}

#endif
