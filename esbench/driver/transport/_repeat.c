/*
 * Repeat and ConnectionCore._repeat_next(): the twins of esbench.driver.transport.repeat.PyRepeat
 * and connectioncore.PyConnectionCore._repeat_next. When the response of a request sent by
 * send_prepared with a repeat is whole, the connection records its sample and writes the same
 * request again, as the executor's loop would have, instead of completing the future; the rules
 * are in repeat.py. Part of esbench.driver.transport._connection (see _connection.c).
 */
#include "_connection.h"

static PyObject *str_cancelled, *str_completed, *record_kwnames, *weight_one;

int
repeat_init_names(void)
{
    if (esb_intern(&str_cancelled, "cancelled") < 0 || esb_intern(&str_completed, "completed") < 0)
        return -1;
    static const char *const texts[10] = {"warmup", "end", "service_time", "latency",
                                          "processing_time", "weight", "success", "error_type",
                                          "sent", "received"};
    PyObject *names[10];
    if (esb_intern_all(names, texts, 10) < 0)
        return -1;
    record_kwnames = PyTuple_New(10);
    if (record_kwnames == NULL)
        return -1;
    for (int i = 0; i < 10; i++)
        PyTuple_SET_ITEM(record_kwnames, i, names[i]); /* steals */
    weight_one = PyFloat_FromDouble(1.0);
    return weight_one == NULL ? -1 : 0;
}

/* A true attribute of the stop flags: 1, 0, or -1 with an exception. */
static int
flag(PyObject *control, PyObject *name)
{
    PyObject *value = PyObject_GetAttr(control, name);
    if (value == NULL)
        return -1;
    int set = PyObject_IsTrue(value);
    Py_DECREF(value);
    return set;
}

/* record(...) with the sample of the whole response (see repeat.py); 0, or -1 with an exception. */
static int
record_sample(ConnObject *self, RepeatObject *repeat, double now)
{
    double start = self->start, end = self->end;
    int warmup = repeat->time_based ? start < repeat->warmup_end
                                    : repeat->iterations < repeat->warmup_iterations;
    PyObject *end_obj = PyFloat_FromDouble(end);
    PyObject *service = PyFloat_FromDouble(end - start);
    PyObject *processing = PyFloat_FromDouble(now - start);
    PyObject *sent = PyLong_FromLongLong(self->sent);
    PyObject *received = PyLong_FromLongLong(self->received_bytes);
    int rc = -1;
    if (end_obj != NULL && service != NULL && processing != NULL && sent != NULL && received != NULL) {
        PyObject *args[10] = {warmup ? Py_True : Py_False, end_obj, service, service, processing,
                              weight_one, Py_True, Py_None, sent, received};
        PyObject *r = PyObject_Vectorcall(repeat->record, args, 0, record_kwnames);
        if (r != NULL) {
            Py_DECREF(r);
            rc = 0;
        }
    }
    Py_XDECREF(end_obj);
    Py_XDECREF(service);
    Py_XDECREF(processing);
    Py_XDECREF(sent);
    Py_XDECREF(received);
    return rc;
}

/* Recording or writing failed: the request's future fails with that error, the connection closes. */
static int
fail(ConnObject *self)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    Py_CLEAR(self->repeat);
    int rc = 0;
    PyObject *r = PyObject_CallMethodNoArgs((PyObject *)self, str_abort);
    if (r == NULL)
        rc = -1;
    Py_XDECREF(r);
    PyObject *future = self->future;
    if (rc == 0 && future != NULL && future != Py_None) {
        Py_INCREF(future);
        PyObject *done = PyObject_CallMethodNoArgs(future, str_done);
        int is_done = done == NULL ? -1 : PyObject_IsTrue(done);
        Py_XDECREF(done);
        if (is_done < 0)
            rc = -1;
        else if (!is_done) {
            r = PyObject_CallMethod(future, "set_exception", "O", value);
            if (r == NULL)
                rc = -1;
            Py_XDECREF(r);
        }
        Py_DECREF(future);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return rc < 0 ? -1 : 1;
}

/* perf_counter() in seconds: 0, or -1 with an exception. */
static int
clock_now(double *now)
{
    PyObject *value = PyObject_CallNoArgs(perf_counter);
    if (value == NULL)
        return -1;
    *now = PyFloat_AsDouble(value);
    Py_DECREF(value);
    return *now == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* PyConnectionCore._repeat_next(): 1 if the connection took care of the whole response (repeated
 * the request, or failed its future), 0 if it goes back to the client's task, -1 with an
 * exception only if even failing the future failed. */
int
repeat_next(ConnObject *self)
{
    PyObject *obj = self->repeat;
    if (obj == NULL || obj == Py_None || Py_TYPE(obj) != &RepeatType)
        return 0; /* a PyRepeat is the Python core's */
    RepeatObject *repeat = (RepeatObject *)obj;
    if (repeat->record == NULL || repeat->control == NULL) /* made without __init__ */
        return 0;
    if (self->status >= 400 || self->closed || !self->keep_alive || self->buffer == NULL ||
        !PyByteArray_Check(self->buffer) || PyByteArray_GET_SIZE(self->buffer) != 0 ||
        self->parts == NULL || !PyTuple_Check(self->parts) || PyTuple_GET_SIZE(self->parts) < 1)
        return 0;
    long long done = repeat->iterations;
    if (repeat->total >= 0 && repeat->total <= done + 1)
        return 0;
    /* Strong references: Python code runs below (the flags, record, the timer, the transport). */
    PyObject *parts = self->parts, *limit = self->limit;
    Py_INCREF(obj);
    Py_INCREF(parts);
    Py_XINCREF(limit);
    int result = 0;
    double now, next_start;
    if (clock_now(&now) < 0)
        goto failed;
    if (now >= repeat->deadline)
        goto end;
    int stop = flag(repeat->control, str_cancelled);
    if (stop == 0)
        stop = flag(repeat->control, str_completed);
    if (stop < 0)
        goto failed;
    if (stop)
        goto end;
    if (record_sample(self, repeat, now) < 0)
        goto failed;
    /* Counted with its sample, and the next request's start with it: whatever fails below, the
     * executor's count and the failed request's start stay right. */
    if (clock_now(&next_start) < 0)
        goto failed;
    repeat->iterations = done + 1;
    self->start = repeat->last_start = next_start;
    if (clear_response(self) < 0 || expire(self, next_start, limit) < 0 || write_parts(self, parts) < 0)
        goto failed;
    result = 1;
    goto end;
failed:
    result = fail(self);
end:
    Py_DECREF(obj);
    Py_DECREF(parts);
    Py_XDECREF(limit);
    return result;
}

static int
repeat_traverse(RepeatObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->record);
    Py_VISIT(self->control);
    return 0;
}

static int
repeat_clear(RepeatObject *self)
{
    Py_CLEAR(self->record);
    Py_CLEAR(self->control);
    return 0;
}

static void
repeat_dealloc(RepeatObject *self)
{
    PyObject_GC_UnTrack(self);
    repeat_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
repeat_init(RepeatObject *self, PyObject *args, PyObject *kwds)
{
    /* Repeat(record, control, *, total, deadline, time_based, warmup_end, warmup_iterations) */
    static char *names[] = {"record", "control", "total", "deadline", "time_based", "warmup_end",
                            "warmup_iterations", NULL};
    PyObject *record, *control;
    long long total, warmup_iterations;
    double deadline, warmup_end;
    int time_based;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO$LdpdL:Repeat", names, &record, &control, &total,
                                     &deadline, &time_based, &warmup_end, &warmup_iterations))
        return -1;
    if (!PyCallable_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "Repeat(): record must be callable");
        return -1;
    }
    Py_INCREF(record);
    Py_XSETREF(self->record, record);
    Py_INCREF(control);
    Py_XSETREF(self->control, control);
    self->total = total;
    self->deadline = deadline;
    self->time_based = (char)time_based;
    self->warmup_end = warmup_end;
    self->warmup_iterations = warmup_iterations;
    self->iterations = 0;
    self->last_start = 0.0;
    return 0;
}

static PyMemberDef repeat_members[] = {
    {"record", T_OBJECT, offsetof(RepeatObject, record), READONLY, "TaskRecorder.record"},
    {"control", T_OBJECT, offsetof(RepeatObject, control), READONLY, "the step's stop flags"},
    {"total", T_LONGLONG, offsetof(RepeatObject, total), 0, "iteration limit (-1: none)"},
    {"iterations", T_LONGLONG, offsetof(RepeatObject, iterations), 0, "requests accounted so far"},
    {"warmup_iterations", T_LONGLONG, offsetof(RepeatObject, warmup_iterations), 0,
     "warmup requests (iteration based)"},
    {"deadline", T_DOUBLE, offsetof(RepeatObject, deadline), 0, "no request starts after (perf_counter s)"},
    {"warmup_end", T_DOUBLE, offsetof(RepeatObject, warmup_end), 0, "warmup end (perf_counter s)"},
    {"last_start", T_DOUBLE, offsetof(RepeatObject, last_start), 0,
     "when the request was last sent again (perf_counter s)"},
    {"time_based", T_BOOL, offsetof(RepeatObject, time_based), 0, "warmup by time"},
    {NULL}};

PyTypeObject RepeatType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.driver.transport._connection.Repeat",
    .tp_doc = PyDoc_STR("A client's limits and recorder for repeating its prepared request (see "
                        "esbench/driver/transport/repeat.py)."),
    .tp_basicsize = sizeof(RepeatObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)repeat_init,
    .tp_dealloc = (destructor)repeat_dealloc,
    .tp_traverse = (traverseproc)repeat_traverse,
    .tp_clear = (inquiry)repeat_clear,
    .tp_members = repeat_members,
};
