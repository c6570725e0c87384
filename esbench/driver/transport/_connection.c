/*
 * esbench.driver.transport._connection: the C twin of esbench/driver/transport/connectioncore.py.
 *
 * ConnectionCore holds the fields of rawconnection._Connection in C and implements its per-request
 * methods: send() (reset, future, deadline, write) and data_received(). data_received() takes the
 * request end first (time.perf_counter(), the same clock and call as the Python core), then handles
 * the common response itself: no bytes buffered, the head and the whole body in this read, a head
 * already in the shared cache of rawconnection._HEAD_FIELDS, not chunked, not gzip, a future still
 * waiting. Anything else goes, untouched, to the Python parser self._on_data(data, arrived), which
 * is also what the Python core calls; so the C path only ever handles the cases whose outcome is
 * a plain copy of the Python one.
 *
 * The module's C files: this one (the type, send(), configure(), the module), _received.c
 * (data_received), _prepared.c (send_prepared), _repeat.c (Repeat, _repeat_next), _response.c
 * (RawResponse), _timing.c (RequestTiming); _connection.h.
 *
 * tests/unit/driver/test_connection_equivalence.py runs the transport's tests on both cores.
 */
#include "_connection.h"

PyObject *head_fields = NULL;
PyObject *perf_counter = NULL;
PyObject *get_running_loop = NULL;
PyObject *raw_response = NULL;
PyObject *raw_head_kwnames = NULL;
PyObject *default_sentinel = NULL;
PyObject *is_default = NULL;
PyObject *current_timing = NULL;
PyObject *current_repeat = NULL;
PyObject *one = NULL;
PyObject *str_on_data, *str_arm, *str_disarm, *str_create_future, *str_done, *str_set_result,
    *str_write, *str_writelines, *str_observe, *str_abort, *str_last_request, *str_next,
    *str_idle, *str_timeout;
PyObject *send_names[4];

static int
conn_traverse(ConnObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->body);
    Py_VISIT(self->buffer);
    Py_VISIT(self->future);
    Py_VISIT(self->loop);
    Py_VISIT(self->raw_head);
    Py_VISIT(self->timer);
    Py_VISIT(self->transport);
    Py_VISIT(self->pool);
    Py_VISIT(self->timing);
    Py_VISIT(self->repeat);
    Py_VISIT(self->parts);
    Py_VISIT(self->limit);
    Py_VISIT(self->methods_loop);
    Py_VISIT(self->create_future);
    Py_VISIT(self->methods_transport);
    Py_VISIT(self->write);
    Py_VISIT(self->writelines);
    Py_VISIT(self->last_head);
    Py_VISIT(self->last_fields);
    return 0;
}

static int
conn_clear(ConnObject *self)
{
    Py_CLEAR(self->body);
    Py_CLEAR(self->buffer);
    Py_CLEAR(self->future);
    Py_CLEAR(self->loop);
    Py_CLEAR(self->raw_head);
    Py_CLEAR(self->timer);
    Py_CLEAR(self->transport);
    Py_CLEAR(self->pool);
    Py_CLEAR(self->timing);
    Py_CLEAR(self->repeat);
    Py_CLEAR(self->parts);
    Py_CLEAR(self->limit);
    Py_CLEAR(self->methods_loop);
    Py_CLEAR(self->create_future);
    Py_CLEAR(self->methods_transport);
    Py_CLEAR(self->write);
    Py_CLEAR(self->writelines);
    Py_CLEAR(self->last_head);
    Py_CLEAR(self->last_fields);
    return 0;
}

static void
conn_dealloc(ConnObject *self)
{
    PyObject_GC_UnTrack(self);
    conn_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
conn_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ConnObject *self = (ConnObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->expected = -1;
        self->keep_alive = 1;
        self->deadline = Py_HUGE_VAL;
        self->timer_due = Py_HUGE_VAL;
    }
    return (PyObject *)self;
}

/* PyConnectionCore._reset() */
int
reset(ConnObject *self)
{
    if (clear_response(self) < 0)
        return -1;
    self->head = 0;
    Py_CLEAR(self->pool);
    Py_CLEAR(self->timing);
    Py_CLEAR(self->repeat);
    return 0;
}

/* PyConnectionCore._clear_response() */
int
clear_response(ConnObject *self)
{
    PyObject *body = PyByteArray_FromStringAndSize(NULL, 0);
    if (body == NULL)
        return -1;
    Py_XSETREF(self->body, body);
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    if (empty == NULL)
        return -1;
    Py_XSETREF(self->raw_head, empty);
    self->status = 0;
    self->expected = -1;
    self->chunked = 0;
    self->gzip = 0;
    self->received = 0;
    self->keep_alive = 1;
    self->end = 0.0;
    self->received_bytes = 0;
    return 0;
}

static PyObject *
conn_reset(ConnObject *self, PyObject *unused)
{
    if (reset(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *
conn_send(ConnObject *self, PyObject *const *given, Py_ssize_t nargs, PyObject *kwnames)
{
    /* send(parts, head, start, limit), positionally or by name. */
    PyObject *args[4];
    if (esb_bind("send", given, nargs, kwnames, send_names, 4, 4, 4, args) < 0)
        return NULL;
    PyObject *parts = args[0], *limit = args[3];
    if (!PyTuple_Check(parts) || PyTuple_GET_SIZE(parts) < 1) {
        PyErr_SetString(PyExc_TypeError, "send(): parts must be a non-empty tuple of bytes");
        return NULL;
    }
    int head = PyObject_IsTrue(args[1]);
    if (head < 0)
        return NULL;
    double start = PyFloat_AsDouble(args[2]);
    if (start == -1.0 && PyErr_Occurred())
        return NULL;
    if (reset(self) < 0)
        return NULL;
    self->head = (char)head;
    if (self->transport == NULL || self->transport == Py_None) {
        PyErr_SetNone(PyExc_AssertionError);
        return NULL;
    }
    if (self->loop == NULL || self->loop == Py_None) {
        PyObject *loop = PyObject_CallNoArgs(get_running_loop);
        if (loop == NULL)
            return NULL;
        Py_XSETREF(self->loop, loop);
    }
    if (self->methods_loop != self->loop) {
        /* Bound once per loop: a method lookup per request is measurable here. */
        PyObject *create = PyObject_GetAttr(self->loop, str_create_future);
        if (create == NULL)
            return NULL;
        Py_XSETREF(self->create_future, create);
        Py_INCREF(self->loop);
        Py_XSETREF(self->methods_loop, self->loop);
    }
    PyObject *future = PyObject_CallNoArgs(self->create_future);
    if (future == NULL)
        return NULL;
    Py_INCREF(future);
    Py_XSETREF(self->future, future);
    if (expire(self, start, limit) < 0 || write_parts(self, parts) < 0)
        goto error;
    return future;
error:
    Py_DECREF(future);
    return NULL;
}

/* PyConnectionCore._expire(): the request in flight started at start and times out limit s later. */
int
expire(ConnObject *self, double start, PyObject *limit)
{
    int has_limit = limit != NULL && limit != Py_None ? PyObject_IsTrue(limit) : 0;
    if (has_limit < 0)
        return -1;
    if (!has_limit) {
        self->deadline = Py_HUGE_VAL;
        return 0;
    }
    double seconds = PyFloat_AsDouble(limit);
    if (seconds == -1.0 && PyErr_Occurred())
        return -1;
    double deadline = start + seconds;
    self->deadline = deadline;
    if (deadline < self->timer_due) {
        /* No timer, or one due after this deadline (a shorter timeout than before). */
        PyObject *r = PyObject_CallMethodNoArgs((PyObject *)self, str_disarm);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
        r = PyObject_CallMethodOneArg((PyObject *)self, str_arm, limit);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

/* PyConnectionCore._write(): the parts (a non-empty tuple) to the transport, not concatenated. */
int
write_parts(ConnObject *self, PyObject *parts)
{
    if (self->transport == NULL || self->transport == Py_None) {
        PyErr_SetNone(PyExc_AssertionError);
        return -1;
    }
    if (self->methods_transport != self->transport) {
        PyObject *write = PyObject_GetAttr(self->transport, str_write);
        if (write == NULL)
            return -1;
        PyObject *writelines = PyObject_GetAttr(self->transport, str_writelines);
        if (writelines == NULL) {
            Py_DECREF(write);
            return -1;
        }
        Py_XSETREF(self->write, write);
        Py_XSETREF(self->writelines, writelines);
        Py_INCREF(self->transport);
        Py_XSETREF(self->methods_transport, self->transport);
    }
    int single = PyTuple_GET_SIZE(parts) == 1;
    PyObject *method = single ? self->write : self->writelines;
    Py_INCREF(method);
    PyObject *r = PyObject_CallOneArg(method, single ? PyTuple_GET_ITEM(parts, 0) : parts);
    Py_DECREF(method);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *
conn_repeat_next(ConnObject *self, PyObject *unused)
{
    int handled = repeat_next(self);
    if (handled < 0)
        return NULL;
    return PyBool_FromLong(handled);
}

static PyMemberDef conn_members[] = {
    {"_body", T_OBJECT, offsetof(ConnObject, body), 0, NULL},
    {"_buffer", T_OBJECT, offsetof(ConnObject, buffer), 0, NULL},
    {"_future", T_OBJECT, offsetof(ConnObject, future), 0, NULL},
    {"_loop", T_OBJECT, offsetof(ConnObject, loop), 0, NULL},
    {"_raw_head", T_OBJECT, offsetof(ConnObject, raw_head), 0, NULL},
    {"_timer", T_OBJECT, offsetof(ConnObject, timer), 0, NULL},
    {"transport", T_OBJECT, offsetof(ConnObject, transport), 0, NULL},
    {"_chunked", T_BOOL, offsetof(ConnObject, chunked), 0, NULL},
    {"_gzip", T_BOOL, offsetof(ConnObject, gzip), 0, NULL},
    {"_head", T_BOOL, offsetof(ConnObject, head), 0, NULL},
    {"_received", T_BOOL, offsetof(ConnObject, received), 0, NULL},
    {"closed", T_BOOL, offsetof(ConnObject, closed), 0, NULL},
    {"keep_alive", T_BOOL, offsetof(ConnObject, keep_alive), 0, NULL},
    {"used", T_BOOL, offsetof(ConnObject, used), 0, NULL},
    {"_expected", T_LONGLONG, offsetof(ConnObject, expected), 0, NULL},
    {"_status", T_LONGLONG, offsetof(ConnObject, status), 0, NULL},
    {"received_bytes", T_LONGLONG, offsetof(ConnObject, received_bytes), 0, NULL},
    {"_deadline", T_DOUBLE, offsetof(ConnObject, deadline), 0, NULL},
    {"_timer_due", T_DOUBLE, offsetof(ConnObject, timer_due), 0, NULL},
    {"end", T_DOUBLE, offsetof(ConnObject, end), 0, NULL},
    {"_pool", T_OBJECT, offsetof(ConnObject, pool), 0, NULL},
    {"_timing", T_OBJECT, offsetof(ConnObject, timing), 0, NULL},
    {"_start", T_DOUBLE, offsetof(ConnObject, start), 0, NULL},
    {"_sent", T_LONGLONG, offsetof(ConnObject, sent), 0, NULL},
    {"_repeat", T_OBJECT, offsetof(ConnObject, repeat), 0, NULL},
    {"_parts", T_OBJECT, offsetof(ConnObject, parts), 0, NULL},
    {"_limit", T_OBJECT, offsetof(ConnObject, limit), 0, NULL},
    {NULL}};

static PyMethodDef conn_methods[] = {
    {"send", (PyCFunction)(void (*)(void))conn_send, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("send(parts, head, start, limit) -> Future: write one request (see "
               "PyConnectionCore.send).")},
    {"data_received", (PyCFunction)conn_data_received, METH_O,
     PyDoc_STR("asyncio.Protocol.data_received: the common response in C, others to _on_data.")},
    {"_reset", (PyCFunction)conn_reset, METH_NOARGS, PyDoc_STR("Forget the previous request and response.")},
    {"_repeat_next", (PyCFunction)conn_repeat_next, METH_NOARGS,
     PyDoc_STR("_repeat_next() -> bool: record the whole response and send the request again, if "
               "the client's repeat allows (see PyConnectionCore._repeat_next).")},
    {NULL}};

PyTypeObject ConnType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.driver.transport._connection.ConnectionCore",
    .tp_doc = PyDoc_STR("Fields, send() and data_received() of a raw HTTP connection (see "
                        "connectioncore.py)."),
    .tp_basicsize = sizeof(ConnObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = conn_new,
    .tp_dealloc = (destructor)conn_dealloc,
    .tp_traverse = (traverseproc)conn_traverse,
    .tp_clear = (inquiry)conn_clear,
    .tp_members = conn_members,
    .tp_methods = conn_methods,
};

static PyObject *
configure(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"head_fields", "perf_counter", "get_running_loop", "raw_response",
                            "default", "is_default", "current_timing", "current_repeat", NULL};
    PyObject *fields, *clock, *get_loop, *response_type, *sentinel, *default_check, *timing_var,
        *repeat_var;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$O!OOOOOO!O!:configure", names, &PyDict_Type, &fields,
                                     &clock, &get_loop, &response_type, &sentinel, &default_check,
                                     &PyContextVar_Type, &timing_var, &PyContextVar_Type, &repeat_var))
        return NULL;
    if (!PyCallable_Check(clock) || !PyCallable_Check(get_loop) || !PyCallable_Check(response_type) ||
        !PyCallable_Check(default_check)) {
        PyErr_SetString(PyExc_TypeError, "configure(): perf_counter, get_running_loop, "
                                         "raw_response and is_default must be callable");
        return NULL;
    }
    Py_INCREF(fields);
    Py_XSETREF(head_fields, fields);
    Py_INCREF(clock);
    Py_XSETREF(perf_counter, clock);
    Py_INCREF(get_loop);
    Py_XSETREF(get_running_loop, get_loop);
    Py_INCREF(response_type);
    Py_XSETREF(raw_response, response_type);
    Py_INCREF(sentinel);
    Py_XSETREF(default_sentinel, sentinel);
    Py_INCREF(default_check);
    Py_XSETREF(is_default, default_check);
    Py_INCREF(timing_var);
    Py_XSETREF(current_timing, timing_var);
    Py_INCREF(repeat_var);
    Py_XSETREF(current_repeat, repeat_var);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure_response", (PyCFunction)(void (*)(void))configure_response, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("Hand over esbench.driver.transport.http.parse_head_fields (RawResponse.headers parses with it).")},
    {"send_prepared", (PyCFunction)(void (*)(void))send_prepared, METH_FASTCALL,
     PyDoc_STR("send_prepared(transport, method, target, body, headers, timeout) -> connection or "
               "None (see connectioncore.py_send_prepared).")},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("Hand over the head cache, perf_counter, get_running_loop and RawResponse.")},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "esbench.driver.transport._connection",
    .m_doc = PyDoc_STR("C implementation of esbench.driver.transport.connectioncore (see connectioncore.py)."),
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__connection(void)
{
    if (esb_intern(&str_on_data, "_on_data") < 0 || esb_intern(&str_arm, "_arm") < 0 ||
        esb_intern(&str_disarm, "_disarm") < 0 || esb_intern(&str_create_future, "create_future") < 0 ||
        esb_intern(&str_done, "done") < 0 || esb_intern(&str_set_result, "set_result") < 0 ||
        esb_intern(&str_write, "write") < 0 || esb_intern(&str_writelines, "writelines") < 0 ||
        esb_intern(&str_observe, "observe") < 0 || esb_intern(&str_abort, "abort") < 0 ||
        esb_intern(&str_last_request, "_last_request") < 0 || esb_intern(&str_next, "_next") < 0 ||
        esb_intern(&str_idle, "_idle") < 0 || esb_intern(&str_timeout, "_timeout") < 0)
        return NULL;
    const char *send_texts[] = {"parts", "head", "start", "limit"};
    if (esb_intern_all(send_names, send_texts, 4) < 0)
        return NULL;
    one = PyLong_FromLong(1);
    if (one == NULL)
        return NULL;
    PyObject *name;
    if (esb_intern(&name, "raw_head") < 0)
        return NULL;
    raw_head_kwnames = PyTuple_Pack(1, name);
    Py_DECREF(name);
    if (raw_head_kwnames == NULL)
        return NULL;
    if (timing_init_names() < 0 || repeat_init_names() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    /* Readies each type and adds it under the last part of its tp_name. */
    if (PyModule_AddType(m, &ConnType) < 0 || PyModule_AddType(m, &ResponseType) < 0 ||
        PyModule_AddType(m, &TimingType) < 0 || PyModule_AddType(m, &RepeatType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", ESBENCH_SOURCE_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
