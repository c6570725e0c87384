/*
 * esbench.metrics._accumulator: the C twin of esbench/metrics/accumulator.py.
 *
 * PhaseCounters and RecorderCore keep the counters of esbench.metrics.recorder in C fields and
 * implement RecorderCore.record(), the driver's one call per request, with the same arithmetic as
 * PyRecorderCore.record() (Python's int() truncation, float additions in the same order, the same
 * dict keys and values). The rare steps call back into Python: phase.flush() when a pending dict is
 * full, accumulator.spread() for a request that spans windows, phase.buckets.freeze_before() when
 * a new per-second bucket starts. configure() hands over the constants, so they live in one place.
 *
 * The module's C files: this one (RecorderCore, configure(), the module), _phase.c (PhaseCounters
 * and the arithmetic helpers), _record.c (record()); _accumulator.h.
 *
 * tests/unit/metrics/test_accumulator_equivalence.py requires identical states from both.
 */
#include "_accumulator.h"

long long max_recordable_us = -1;
Py_ssize_t pending_values = 4096;
int exact_bits = 6;
int sub_bits = 5;
long long service_time_offset = 4096;
PyObject *unknown_error = NULL;
PyObject *spread_fn = NULL;
PyObject *str_flush, *str_freeze_before;

static int
core_traverse(CoreObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->warmup);
    Py_VISIT(self->measurement);
    Py_VISIT(self->samples);
    Py_VISIT(self->sample_errors);
    return 0;
}

static int
core_clear(CoreObject *self)
{
    Py_CLEAR(self->warmup);
    Py_CLEAR(self->measurement);
    Py_CLEAR(self->samples);
    Py_CLEAR(self->sample_errors);
    return 0;
}

static void
core_dealloc(CoreObject *self)
{
    PyObject_GC_UnTrack(self);
    core_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
core_get_origin(CoreObject *self, void *closure)
{
    if (!self->has_origin)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(self->origin);
}

static int
core_set_origin(CoreObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete _origin");
        return -1;
    }
    if (value == Py_None) {
        self->has_origin = 0;
        return 0;
    }
    double origin = PyFloat_AsDouble(value);
    if (origin == -1.0 && PyErr_Occurred())
        return -1;
    self->origin = origin;
    self->has_origin = 1;
    return 0;
}

static PyGetSetDef core_getset[] = {
    {"_origin", (getter)core_get_origin, (setter)core_set_origin,
     "perf_counter s of throughput window 0, or None", NULL},
    {NULL}};

static PyMemberDef core_members[] = {
    {"count", T_LONGLONG, offsetof(CoreObject, count), 0, "samples"},
    {"error_count", T_LONGLONG, offsetof(CoreObject, error_count), 0, "failed samples"},
    {"total_weight", T_DOUBLE, offsetof(CoreObject, total_weight), 0, "sum of weights"},
    {"_warmup", T_OBJECT_EX, offsetof(CoreObject, warmup), 0, "warmup phase"},
    {"_measurement", T_OBJECT_EX, offsetof(CoreObject, measurement), 0, "measurement phase"},
    {"samples", T_OBJECT, offsetof(CoreObject, samples), 0,
     "bytearray that keeps every request (5 doubles each), or None"},
    {"sample_errors", T_OBJECT, offsetof(CoreObject, sample_errors), 0,
     "dict: position of a failed request in samples -> its error type"},
    {NULL}};

static PyMethodDef core_methods[] = {
    {"record", (PyCFunction)(void (*)(void))core_record, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("record(*, warmup, end, service_time, latency, processing_time, weight=1.0, "
               "success=True, error_type=None, sent=0, received=0): one request (see "
               "TaskRecorder.record).")},
    {NULL}};

PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.metrics._accumulator.RecorderCore",
    .tp_doc = PyDoc_STR("Live counters and record() of a task recorder (see accumulator.py)."),
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_members = core_members,
    .tp_getset = core_getset,
    .tp_methods = core_methods,
};

/* ----------------------------------------------------------------------------------- module */

static PyObject *
configure(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"max_recordable_us", "pending_values", "exact_bits", "sub_bits",
                            "service_time_offset", "unknown_error", "spread", NULL};
    long long max_us, offset;
    Py_ssize_t pending;
    int exact, sub;
    PyObject *unknown, *spread;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$LniiLUO:configure", names, &max_us, &pending,
                                     &exact, &sub, &offset, &unknown, &spread))
        return NULL;
    if (max_us < 0 || pending < 1 || exact < 1 || sub < 1 || offset < 0 || !PyCallable_Check(spread)) {
        PyErr_SetString(PyExc_ValueError, "configure(): a constant is out of range");
        return NULL;
    }
    max_recordable_us = max_us;
    pending_values = pending;
    exact_bits = exact;
    sub_bits = sub;
    service_time_offset = offset;
    Py_INCREF(unknown);
    Py_XSETREF(unknown_error, unknown);
    Py_INCREF(spread);
    Py_XSETREF(spread_fn, spread);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("Hand over accumulator.py's constants and spread(); call once before record().")},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "esbench.metrics._accumulator",
    .m_doc = PyDoc_STR("C implementation of esbench.metrics.accumulator (see accumulator.py)."),
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__accumulator(void)
{
    if (esb_intern(&str_flush, "flush") < 0 || esb_intern(&str_freeze_before, "freeze_before") < 0 ||
        record_init_names() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    /* Readies each type and adds it under the last part of its tp_name. */
    if (PyModule_AddType(m, &PhaseType) < 0 || PyModule_AddType(m, &CoreType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", ESBENCH_SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
