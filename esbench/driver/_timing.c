/*
 * esbench.driver._timing: the C twin of esbench.driver.timing.PyRequestTiming, the holder of a
 * client's earliest request start, latest response end and bytes. Same fields, same arithmetic
 * (the earliest start, the latest end, sums of bytes); the connection and the executor call it
 * once or twice per request.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    double start;
    double end;
    long long sent;
    long long received;
} TimingObject;

static PyObject *
timing_reset(TimingObject *self, PyObject *unused)
{
    self->start = 0.0;
    self->end = 0.0;
    self->sent = 0;
    self->received = 0;
    Py_RETURN_NONE;
}

static PyObject *observe_names[4];

static PyObject *
timing_observe(TimingObject *self, PyObject *const *given, Py_ssize_t nargs, PyObject *kwnames)
{
    /* observe(start, end, sent=0, received=0), positionally or by name */
    PyObject *args[4] = {NULL, NULL, NULL, NULL};
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs > 4) {
        PyErr_Format(PyExc_TypeError, "observe() takes at most 4 arguments (%zd given)", nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        args[i] = given[i];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int j = 0;
        for (; j < 4; j++) {
            if (name == observe_names[j])
                break;
            int eq = PyUnicode_Compare(name, observe_names[j]);
            if (eq == -1 && PyErr_Occurred())
                return NULL;
            if (eq == 0)
                break;
        }
        if (j == 4 || args[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "observe() got an unexpected or repeated argument '%U'", name);
            return NULL;
        }
        args[j] = given[nargs + i];
    }
    if (args[0] == NULL || args[1] == NULL) {
        PyErr_SetString(PyExc_TypeError, "observe() missing start or end");
        return NULL;
    }
    double start = PyFloat_AsDouble(args[0]);
    if (start == -1.0 && PyErr_Occurred())
        return NULL;
    double end = PyFloat_AsDouble(args[1]);
    if (end == -1.0 && PyErr_Occurred())
        return NULL;
    long long sent = 0, received = 0;
    if (args[2] != NULL && (sent = PyLong_AsLongLong(args[2])) == -1 && PyErr_Occurred())
        return NULL;
    if (args[3] != NULL && (received = PyLong_AsLongLong(args[3])) == -1 && PyErr_Occurred())
        return NULL;
    if (self->start == 0.0 || start < self->start)
        self->start = start;
    if (end > self->end)
        self->end = end;
    self->sent += sent;
    self->received += received;
    Py_RETURN_NONE;
}

static PyObject *
timing_observed(TimingObject *self, void *closure)
{
    return PyBool_FromLong(self->end != 0.0);
}

static PyMemberDef timing_members[] = {
    {"start", T_DOUBLE, offsetof(TimingObject, start), 0, "earliest request start (perf_counter s)"},
    {"end", T_DOUBLE, offsetof(TimingObject, end), 0, "latest response end (perf_counter s)"},
    {"sent", T_LONGLONG, offsetof(TimingObject, sent), 0, "bytes sent"},
    {"received", T_LONGLONG, offsetof(TimingObject, received), 0, "bytes received"},
    {NULL}};

static PyGetSetDef timing_getset[] = {
    {"observed", (getter)timing_observed, NULL, "True if a request was recorded since the reset",
     NULL},
    {NULL}};

static PyMethodDef timing_methods[] = {
    {"reset", (PyCFunction)timing_reset, METH_NOARGS, PyDoc_STR("Forget the previous requests.")},
    {"observe", (PyCFunction)(void (*)(void))timing_observe, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("observe(start, end, sent=0, received=0): one request.")},
    {NULL}};

static PyTypeObject TimingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.driver._timing.RequestTiming",
    .tp_doc = PyDoc_STR("Earliest request start, latest response end and bytes of a client's "
                        "requests (see esbench/driver/timing.py)."),
    .tp_basicsize = sizeof(TimingObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_members = timing_members,
    .tp_getset = timing_getset,
    .tp_methods = timing_methods,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "esbench.driver._timing",
    .m_doc = PyDoc_STR("C implementation of esbench.driver.timing.PyRequestTiming."),
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__timing(void)
{
    const char *names[4] = {"start", "end", "sent", "received"};
    for (int i = 0; i < 4; i++) {
        observe_names[i] = PyUnicode_InternFromString(names[i]);
        if (observe_names[i] == NULL)
            return NULL;
    }
    if (PyType_Ready(&TimingType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&TimingType);
    if (PyModule_AddObject(m, "RequestTiming", (PyObject *)&TimingType) < 0) {
        Py_DECREF(&TimingType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
