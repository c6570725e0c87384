/*
 * RequestTiming in C: the twin of esbench.driver.transport.timing.PyRequestTiming, the holder of a client's
 * earliest request start, latest response end and bytes. Same fields, same arithmetic (the
 * earliest start, the latest end, sums of bytes); the executor resets it per request and the
 * connection adds each request to it. Part of esbench.driver.transport._connection (see _connection.c).
 */
#include "_connection.h"

void
timing_add(TimingObject *self, double start, double end, long long sent, long long received)
{
    if (self->start == 0.0 || start < self->start)
        self->start = start;
    if (end > self->end)
        self->end = end;
    self->sent += sent;
    self->received += received;
}

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
    PyObject *args[4];
    if (esb_bind("observe", given, nargs, kwnames, observe_names, 4, 4, 2, args) < 0)
        return NULL;
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
    timing_add(self, start, end, sent, received);
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

PyTypeObject TimingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.driver.transport._connection.RequestTiming",
    .tp_doc = PyDoc_STR("Earliest request start, latest response end and bytes of a client's "
                        "requests (see esbench/driver/transport/timing.py)."),
    .tp_basicsize = sizeof(TimingObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_members = timing_members,
    .tp_getset = timing_getset,
    .tp_methods = timing_methods,
};

int
timing_init_names(void)
{
    const char *names[4] = {"start", "end", "sent", "received"};
    return esb_intern_all(observe_names, names, 4);
}
