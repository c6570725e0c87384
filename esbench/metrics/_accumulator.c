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
 * tests/unit/metrics/test_accumulator_equivalence.py requires identical states from both.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

static long long max_recordable_us = -1; /* -1: configure() not called yet */
static Py_ssize_t pending_values = 4096;
static int exact_bits = 6;
static int sub_bits = 5;
static long long service_time_offset = 4096;
static PyObject *unknown_error = NULL; /* str */
static PyObject *spread_fn = NULL;     /* accumulator.spread */

static PyObject *str_flush, *str_freeze_before;
static PyObject *kw_warmup, *kw_end, *kw_service_time, *kw_latency, *kw_processing_time, *kw_weight,
    *kw_success, *kw_error_type, *kw_sent, *kw_received;

/* ------------------------------------------------------------------------------ PhaseCounters */

typedef struct {
    PyObject_HEAD
    long long count;
    long long error_count;
    long long overflow;
    double weight;
    double service_sum;
    double first_end;
    double last_end;
    long long bytes_sent;
    long long bytes_received;
    PyObject *pending; /* tuple of three dicts */
    PyObject *windows; /* list of float */
    PyObject *live;    /* dict: window -> dict */
    PyObject *buckets; /* WindowBuckets */
    PyObject *errors;  /* dict: str -> int */
} PhaseObject;

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
        self->first_end = Py_HUGE_VAL;
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
    {"first_end", T_DOUBLE, offsetof(PhaseObject, first_end), 0, "earliest end (perf_counter s)"},
    {"last_end", T_DOUBLE, offsetof(PhaseObject, last_end), 0, "latest end (perf_counter s)"},
    {"bytes_sent", T_LONGLONG, offsetof(PhaseObject, bytes_sent), 0, "bytes sent"},
    {"bytes_received", T_LONGLONG, offsetof(PhaseObject, bytes_received), 0, "bytes received"},
    {"pending", T_OBJECT_EX, offsetof(PhaseObject, pending), 0, "three dicts: µs -> count"},
    {"windows", T_OBJECT_EX, offsetof(PhaseObject, windows), 0, "weight per 1-s window"},
    {"live", T_OBJECT_EX, offsetof(PhaseObject, live), 0, "window -> bucket counts"},
    {"buckets", T_OBJECT_EX, offsetof(PhaseObject, buckets), 0, "WindowBuckets"},
    {"errors", T_OBJECT_EX, offsetof(PhaseObject, errors), 0, "error type -> count"},
    {NULL}};

static PyTypeObject PhaseType = {
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

/* ------------------------------------------------------------------------------- RecorderCore */

typedef struct {
    PyObject_HEAD
    long long count;
    long long error_count;
    double total_weight;
    int has_origin;
    double origin;
    PyObject *warmup;      /* PhaseCounters */
    PyObject *measurement; /* PhaseCounters */
} CoreObject;

static int
core_traverse(CoreObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->warmup);
    Py_VISIT(self->measurement);
    return 0;
}

static int
core_clear(CoreObject *self)
{
    Py_CLEAR(self->warmup);
    Py_CLEAR(self->measurement);
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
    {NULL}};

/* Python's int(x) for a float, as long long; *overflow set if it does not fit (Python would give a
 * big int, which is out of every range checked here). Raises like int() for NaN and infinity. */
static int
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
static int
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

static long long
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
static int
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

static int
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

static PyObject *
core_record(CoreObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *o_warmup = NULL, *o_end = NULL, *o_service = NULL, *o_latency = NULL,
             *o_processing = NULL, *o_weight = NULL, *o_success = NULL, *o_error_type = NULL,
             *o_sent = NULL, *o_received = NULL;
    if (nargs != 0) {
        PyErr_Format(PyExc_TypeError, "record() takes keyword arguments only (%zd positional given)",
                     nargs);
        return NULL;
    }
    if (max_recordable_us < 0) {
        PyErr_SetString(PyExc_RuntimeError, "esbench.metrics._accumulator.configure() was not called");
        return NULL;
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = args[i];
        PyObject **slot = NULL;
        /* Interned names first (the caller's code object interns them), then by value. */
        PyObject *names[] = {kw_warmup, kw_end, kw_service_time, kw_latency, kw_processing_time,
                             kw_weight, kw_success, kw_error_type, kw_sent, kw_received};
        PyObject **slots[] = {&o_warmup, &o_end, &o_service, &o_latency, &o_processing,
                              &o_weight, &o_success, &o_error_type, &o_sent, &o_received};
        for (int j = 0; j < 10; j++) {
            if (name == names[j]) {
                slot = slots[j];
                break;
            }
        }
        if (slot == NULL) {
            for (int j = 0; j < 10; j++) {
                int eq = PyUnicode_Compare(name, names[j]);
                if (eq == -1 && PyErr_Occurred())
                    return NULL;
                if (eq == 0) {
                    slot = slots[j];
                    break;
                }
            }
        }
        if (slot == NULL) {
            PyErr_Format(PyExc_TypeError, "record() got an unexpected keyword argument '%U'", name);
            return NULL;
        }
        if (*slot != NULL) {
            PyErr_Format(PyExc_TypeError, "record() got multiple values for argument '%U'", name);
            return NULL;
        }
        *slot = value;
    }
    if (o_warmup == NULL || o_end == NULL || o_service == NULL || o_latency == NULL ||
        o_processing == NULL) {
        PyErr_SetString(PyExc_TypeError, "record() missing a required keyword argument (warmup, end, "
                                         "service_time, latency, processing_time)");
        return NULL;
    }
    int warmup = PyObject_IsTrue(o_warmup);
    if (warmup < 0)
        return NULL;
    double end = PyFloat_AsDouble(o_end);
    if (end == -1.0 && PyErr_Occurred())
        return NULL;
    double service_time = PyFloat_AsDouble(o_service);
    if (service_time == -1.0 && PyErr_Occurred())
        return NULL;
    double latency = PyFloat_AsDouble(o_latency);
    if (latency == -1.0 && PyErr_Occurred())
        return NULL;
    double processing_time = PyFloat_AsDouble(o_processing);
    if (processing_time == -1.0 && PyErr_Occurred())
        return NULL;
    double weight = 1.0;
    if (o_weight != NULL) {
        weight = PyFloat_AsDouble(o_weight);
        if (weight == -1.0 && PyErr_Occurred())
            return NULL;
    }
    int success = 1;
    if (o_success != NULL && (success = PyObject_IsTrue(o_success)) < 0)
        return NULL;
    long long sent = 0, received = 0;
    if (o_sent != NULL && ((sent = PyLong_AsLongLong(o_sent)) == -1 && PyErr_Occurred()))
        return NULL;
    if (o_received != NULL &&
        ((received = PyLong_AsLongLong(o_received)) == -1 && PyErr_Occurred()))
        return NULL;

    PyObject *phase_obj = warmup ? self->warmup : self->measurement;
    if (check_phase(phase_obj) < 0)
        return NULL;
    /* The phase may be replaced or flushed through Python calls below: keep it alive. */
    Py_INCREF(phase_obj);
    PhaseObject *phase = (PhaseObject *)phase_obj;
    PyObject *result = NULL;

    self->count += 1;
    self->total_weight += weight;
    phase->count += 1;
    phase->weight += weight;
    phase->service_sum += service_time;
    if (end < phase->first_end)
        phase->first_end = end;
    if (end > phase->last_end)
        phase->last_end = end;
    if (!self->has_origin) {
        self->origin = end;
        self->has_origin = 1;
    }
    double origin = self->origin;
    phase->bytes_sent += sent;
    phase->bytes_received += received;

    long long latency_us, service_us, processing_us;
    int latency_big, service_big, processing_big;
    if (float_to_ll(latency * 1e6, &latency_us, &latency_big) < 0 ||
        float_to_ll(service_time * 1e6, &service_us, &service_big) < 0 ||
        float_to_ll(processing_time * 1e6, &processing_us, &processing_big) < 0)
        goto done;
    PyObject *pending_latency = PyTuple_GET_ITEM(phase->pending, 0);
    PyObject *pending_service = PyTuple_GET_ITEM(phase->pending, 1);
    PyObject *pending_processing = PyTuple_GET_ITEM(phase->pending, 2);
    Py_INCREF(pending_latency);
    Py_INCREF(pending_service);
    Py_INCREF(pending_processing);
    int latency_ok = !latency_big && 0 <= latency_us && latency_us <= max_recordable_us;
    int service_ok = !service_big && 0 <= service_us && service_us <= max_recordable_us;
    int processing_ok =
        !processing_big && 0 <= processing_us && processing_us <= max_recordable_us;
    int failed = 0;
    if (latency_ok)
        failed = count_into(pending_latency, latency_us) < 0;
    else
        phase->overflow += 1;
    if (!failed) {
        if (service_ok)
            failed = count_into(pending_service, service_us) < 0;
        else
            phase->overflow += 1;
    }
    if (!failed) {
        if (processing_ok)
            failed = count_into(pending_processing, processing_us) < 0;
        else
            phase->overflow += 1;
    }
    if (!failed && (PyDict_GET_SIZE(pending_latency) >= pending_values ||
                    PyDict_GET_SIZE(pending_service) >= pending_values ||
                    PyDict_GET_SIZE(pending_processing) >= pending_values)) {
        PyObject *r = PyObject_CallMethodNoArgs(phase_obj, str_flush);
        if (r == NULL)
            failed = 1;
        Py_XDECREF(r);
    }
    Py_DECREF(pending_latency);
    Py_DECREF(pending_service);
    Py_DECREF(pending_processing);
    if (failed)
        goto done;

    long long k, start_k;
    int big;
    if (float_to_ll(end - origin, &k, &big) < 0)
        goto done;
    if (k < 0)
        k = 0;
    if (float_to_ll(end - service_time - origin, &start_k, &big) < 0)
        goto done;
    if (phase->windows == NULL) {
        PyErr_SetString(PyExc_AttributeError, "phase.windows");
        goto done;
    }
    if (start_k == k && !big && k < PY_SSIZE_T_MAX / 2) {
        if (add_to_window(phase->windows, k, weight) < 0)
            goto done;
    }
    else {
        PyObject *windows = phase->windows;
        Py_INCREF(windows);
        PyObject *r = PyObject_CallFunction(spread_fn, "Odddd", windows, origin, end - service_time,
                                            end, weight);
        Py_DECREF(windows);
        if (r == NULL)
            goto done;
        Py_DECREF(r);
    }
    if (!warmup) {
        PyObject *live = phase->live;
        Py_INCREF(live);
        PyObject *key = PyLong_FromLongLong(k);
        if (key == NULL) {
            Py_DECREF(live);
            goto done;
        }
        PyObject *bucket = PyDict_GetItemWithError(live, key); /* borrowed */
        if (bucket != NULL) {
            Py_INCREF(bucket);
        }
        else if (PyErr_Occurred()) {
            Py_DECREF(key);
            Py_DECREF(live);
            goto done;
        }
        else {
            PyObject *r = PyObject_CallMethod(phase->buckets, "freeze_before", "L", k - 1);
            if (r == NULL) {
                Py_DECREF(key);
                Py_DECREF(live);
                goto done;
            }
            Py_DECREF(r);
            bucket = PyDict_New();
            if (bucket == NULL || PyDict_SetItem(live, key, bucket) < 0) {
                Py_XDECREF(bucket);
                Py_DECREF(key);
                Py_DECREF(live);
                goto done;
            }
        }
        Py_DECREF(key);
        Py_DECREF(live);
        int rc = 0;
        if (latency_ok)
            rc = count_into(bucket, bucket_of(latency_us));
        if (rc == 0 && service_ok)
            rc = count_into(bucket, bucket_of(service_us) + service_time_offset);
        Py_DECREF(bucket);
        if (rc < 0)
            goto done;
    }
    if (!success) {
        self->error_count += 1;
        phase->error_count += 1;
        PyObject *key = unknown_error;
        if (o_error_type != NULL) {
            int truthy = PyObject_IsTrue(o_error_type);
            if (truthy < 0)
                goto done;
            if (truthy)
                key = o_error_type;
        }
        PyObject *errors = phase->errors;
        Py_INCREF(errors);
        PyObject *old = PyDict_GetItemWithError(errors, key);
        PyObject *value;
        if (old == NULL && PyErr_Occurred()) {
            Py_DECREF(errors);
            goto done;
        }
        if (old == NULL) {
            value = PyLong_FromLong(1);
        }
        else {
            PyObject *one = PyLong_FromLong(1);
            value = one ? PyNumber_Add(old, one) : NULL;
            Py_XDECREF(one);
        }
        if (value == NULL || PyDict_SetItem(errors, key, value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(errors);
            goto done;
        }
        Py_DECREF(value);
        Py_DECREF(errors);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_DECREF(phase_obj);
    return result;
}

static PyMethodDef core_methods[] = {
    {"record", (PyCFunction)(void (*)(void))core_record, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("record(*, warmup, end, service_time, latency, processing_time, weight=1.0, "
               "success=True, error_type=None, sent=0, received=0): one request (see "
               "TaskRecorder.record).")},
    {NULL}};

static PyTypeObject CoreType = {
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

static int
intern(PyObject **slot, const char *name)
{
    *slot = PyUnicode_InternFromString(name);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC
PyInit__accumulator(void)
{
    if (intern(&str_flush, "flush") < 0 || intern(&str_freeze_before, "freeze_before") < 0 ||
        intern(&kw_warmup, "warmup") < 0 || intern(&kw_end, "end") < 0 ||
        intern(&kw_service_time, "service_time") < 0 || intern(&kw_latency, "latency") < 0 ||
        intern(&kw_processing_time, "processing_time") < 0 || intern(&kw_weight, "weight") < 0 ||
        intern(&kw_success, "success") < 0 || intern(&kw_error_type, "error_type") < 0 ||
        intern(&kw_sent, "sent") < 0 || intern(&kw_received, "received") < 0)
        return NULL;
    if (PyType_Ready(&PhaseType) < 0 || PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PhaseType);
    if (PyModule_AddObject(m, "PhaseCounters", (PyObject *)&PhaseType) < 0) {
        Py_DECREF(&PhaseType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "RecorderCore", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
