/*
 * PhaseCounters in C (the counters of one phase of a task) and the arithmetic helpers of record().
 * Part of esbench.metrics._accumulator (see _accumulator.c).
 */
#include "_accumulator.h"
#include <math.h>

static int
phase_traverse(PhaseObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->pending);
    Py_VISIT(self->windows);
    Py_VISIT(self->live);
    Py_VISIT(self->buckets);
    Py_VISIT(self->errors);
    return 0;
}

static int
phase_clear(PhaseObject *self)
{
    Py_CLEAR(self->pending);
    Py_CLEAR(self->windows);
    Py_CLEAR(self->live);
    Py_CLEAR(self->buckets);
    Py_CLEAR(self->errors);
    return 0;
}

static void
phase_dealloc(PhaseObject *self)
{
    PyObject_GC_UnTrack(self);
    phase_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
phase_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PhaseObject *self = (PhaseObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->last_end = -Py_HUGE_VAL;
    }
    return (PyObject *)self;
}

static PyMemberDef phase_members[] = {
    {"count", T_LONGLONG, offsetof(PhaseObject, count), 0, "samples"},
    {"error_count", T_LONGLONG, offsetof(PhaseObject, error_count), 0, "failed samples"},
    {"overflow", T_LONGLONG, offsetof(PhaseObject, overflow), 0, "durations out of range"},
    {"weight", T_DOUBLE, offsetof(PhaseObject, weight), 0, "sum of weights"},
    {"service_sum", T_DOUBLE, offsetof(PhaseObject, service_sum), 0, "sum of service times (s)"},
    {"last_end", T_DOUBLE, offsetof(PhaseObject, last_end), 0, "latest end (perf_counter s)"},
    {"bytes_sent", T_LONGLONG, offsetof(PhaseObject, bytes_sent), 0, "bytes sent"},
    {"bytes_received", T_LONGLONG, offsetof(PhaseObject, bytes_received), 0, "bytes received"},
    {"pending", T_OBJECT_EX, offsetof(PhaseObject, pending), 0, "three dicts: µs -> count"},
    {"windows", T_OBJECT_EX, offsetof(PhaseObject, windows), 0, "weight per 1-s window"},
    {"live", T_OBJECT_EX, offsetof(PhaseObject, live), 0, "window -> bucket counts"},
    {"buckets", T_OBJECT_EX, offsetof(PhaseObject, buckets), 0, "WindowBuckets"},
    {"errors", T_OBJECT_EX, offsetof(PhaseObject, errors), 0, "error type -> count"},
    {NULL}};

PyTypeObject PhaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.metrics._accumulator.PhaseCounters",
    .tp_doc = PyDoc_STR("Counters of one phase of a task (see esbench/metrics/accumulator.py)."),
    .tp_basicsize = sizeof(PhaseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = phase_new,
    .tp_dealloc = (destructor)phase_dealloc,
    .tp_traverse = (traverseproc)phase_traverse,
    .tp_clear = (inquiry)phase_clear,
    .tp_members = phase_members,
};
/* Python's int(x) for a float, as long long; *overflow set if it does not fit (Python would give a
 * big int, which is out of every range checked here). Raises like int() for NaN and infinity. */
int
float_to_ll(double x, long long *out, int *overflow)
{
    if (isnan(x)) {
        PyErr_SetString(PyExc_ValueError, "cannot convert float NaN to integer");
        return -1;
    }
    if (isinf(x)) {
        PyErr_SetString(PyExc_OverflowError, "cannot convert float infinity to integer");
        return -1;
    }
    *overflow = 0;
    if (x >= 9.2e18 || x <= -9.2e18) {
        *overflow = 1;
        *out = x > 0 ? LLONG_MAX : LLONG_MIN;
        return 0;
    }
    *out = (long long)x; /* C truncates toward zero, as int() does */
    return 0;
}

/* dict[key] = dict.get(key, 0) + 1 */
int
count_into(PyObject *dict, long long key)
{
    PyObject *k = PyLong_FromLongLong(key);
    if (k == NULL)
        return -1;
    PyObject *old = PyDict_GetItemWithError(dict, k); /* borrowed */
    PyObject *value;
    if (old == NULL) {
        if (PyErr_Occurred()) {
            Py_DECREF(k);
            return -1;
        }
        value = PyLong_FromLong(1);
    }
    else if (PyLong_CheckExact(old)) {
        long long n = PyLong_AsLongLong(old);
        if (n == -1 && PyErr_Occurred()) {
            Py_DECREF(k);
            return -1;
        }
        value = PyLong_FromLongLong(n + 1);
    }
    else {
        PyObject *one = PyLong_FromLong(1);
        value = one ? PyNumber_Add(old, one) : NULL;
        Py_XDECREF(one);
    }
    if (value == NULL) {
        Py_DECREF(k);
        return -1;
    }
    int rc = PyDict_SetItem(dict, k, value);
    Py_DECREF(k);
    Py_DECREF(value);
    return rc;
}

long long
bucket_of(long long us)
{
    int bits = us == 0 ? 0 : 64 - __builtin_clzll((unsigned long long)us);
    if (bits > exact_bits) {
        bits -= exact_bits;
        us = ((long long)bits << sub_bits) + (us >> bits);
    }
    return us;
}

/* windows[k] += weight, growing the list with 0.0 as needed. */
int
add_to_window(PyObject *windows, long long k, double weight)
{
    if (!PyList_Check(windows)) {
        PyErr_SetString(PyExc_TypeError, "phase.windows must be a list");
        return -1;
    }
    while (PyList_GET_SIZE(windows) <= k) {
        PyObject *zero = PyFloat_FromDouble(0.0);
        if (zero == NULL)
            return -1;
        int rc = PyList_Append(windows, zero);
        Py_DECREF(zero);
        if (rc < 0)
            return -1;
    }
    PyObject *item = PyList_GET_ITEM(windows, k);
    double current = PyFloat_AsDouble(item);
    if (current == -1.0 && PyErr_Occurred())
        return -1;
    PyObject *sum = PyFloat_FromDouble(current + weight);
    if (sum == NULL)
        return -1;
    return PyList_SetItem(windows, k, sum); /* steals sum */
}

int
check_phase(PyObject *phase)
{
    if (phase == NULL || !PyObject_TypeCheck(phase, &PhaseType)) {
        PyErr_SetString(PyExc_TypeError, "the recorder's phases must be PhaseCounters");
        return -1;
    }
    PhaseObject *p = (PhaseObject *)phase;
    if (p->pending == NULL || !PyTuple_Check(p->pending) || PyTuple_GET_SIZE(p->pending) != 3 ||
        p->windows == NULL || p->live == NULL || !PyDict_Check(p->live) || p->buckets == NULL ||
        p->errors == NULL || !PyDict_Check(p->errors)) {
        PyErr_SetString(PyExc_TypeError, "PhaseCounters is not initialised (pending, windows, live, "
                                         "buckets, errors)");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        if (!PyDict_Check(PyTuple_GET_ITEM(p->pending, i))) {
            PyErr_SetString(PyExc_TypeError, "phase.pending must hold three dicts");
            return -1;
        }
    }
    return 0;
}
