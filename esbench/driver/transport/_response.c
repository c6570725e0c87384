/*
 * RawResponse in C: an HTTP response whose body has not been parsed; the twin of
 * esbench.driver.transport.http.PyRawResponse (same attributes, headers parsed on first access with the
 * Python parse_head_fields). Part of esbench.driver.transport._connection (see _connection.c).
 */
#include "_connection.h"

static PyObject *parse_head_fields = NULL; /* esbench.driver.transport.http.parse_head_fields */


static int
response_traverse(ResponseObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->status);
    Py_VISIT(self->body);
    Py_VISIT(self->headers);
    Py_VISIT(self->raw_head);
    return 0;
}

static int
response_clear(ResponseObject *self)
{
    Py_CLEAR(self->status);
    Py_CLEAR(self->body);
    Py_CLEAR(self->headers);
    Py_CLEAR(self->raw_head);
    return 0;
}

static void
response_dealloc(ResponseObject *self)
{
    PyObject_GC_UnTrack(self);
    response_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
response_init(ResponseObject *self, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"status", "body", "headers", "raw_head", NULL};
    PyObject *status, *body, *headers = Py_None, *raw_head = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O$O:RawResponse", names, &status, &body, &headers,
                                     &raw_head))
        return -1;
    if (raw_head == NULL) {
        raw_head = PyBytes_FromStringAndSize(NULL, 0);
        if (raw_head == NULL)
            return -1;
    }
    else {
        Py_INCREF(raw_head);
    }
    Py_INCREF(status);
    Py_XSETREF(self->status, status);
    Py_INCREF(body);
    Py_XSETREF(self->body, body);
    Py_INCREF(headers);
    Py_XSETREF(self->headers, headers);
    Py_XSETREF(self->raw_head, raw_head);
    return 0;
}

/* A response from C: RawResponse(status, body, raw_head=head) without the argument parsing. */
PyObject *
new_response(long long status, PyObject *body, PyObject *head)
{
    ResponseObject *self = PyObject_GC_New(ResponseObject, &ResponseType);
    if (self == NULL)
        return NULL;
    self->status = PyLong_FromLongLong(status);
    Py_INCREF(body);
    self->body = body;
    Py_INCREF(Py_None);
    self->headers = Py_None;
    Py_INCREF(head);
    self->raw_head = head;
    PyObject_GC_Track(self);
    if (self->status == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyObject *
response_get_headers(ResponseObject *self, void *closure)
{
    if (self->headers == NULL || self->headers == Py_None) {
        PyObject *headers;
        int has_head = self->raw_head != NULL && PyObject_IsTrue(self->raw_head);
        if (has_head < 0)
            return NULL;
        if (has_head) {
            if (parse_head_fields == NULL) {
                PyErr_SetString(PyExc_RuntimeError, "RawResponse: configure_response() was not called");
                return NULL;
            }
            headers = PyObject_CallOneArg(parse_head_fields, self->raw_head);
        }
        else {
            headers = PyDict_New();
        }
        if (headers == NULL)
            return NULL;
        Py_XSETREF(self->headers, headers);
    }
    Py_INCREF(self->headers);
    return self->headers;
}

static PyObject *
response_get_ok(ResponseObject *self, void *closure)
{
    PyObject *limit = PyLong_FromLong(400);
    if (limit == NULL)
        return NULL;
    PyObject *result = PyObject_RichCompare(self->status, limit, Py_LT);
    Py_DECREF(limit);
    return result;
}

static PyObject *
response_repr(ResponseObject *self)
{
    Py_ssize_t size = PyObject_Length(self->body);
    if (size < 0)
        return NULL;
    return PyUnicode_FromFormat("RawResponse(status=%S, body=%zd bytes)", self->status, size);
}

static PyMemberDef response_members[] = {
    {"status", T_OBJECT, offsetof(ResponseObject, status), 0, "HTTP status code"},
    {"body", T_OBJECT, offsetof(ResponseObject, body), 0, "the raw (decompressed) body bytes"},
    {"_headers", T_OBJECT, offsetof(ResponseObject, headers), 0, NULL},
    {"_raw_head", T_OBJECT, offsetof(ResponseObject, raw_head), 0, NULL},
    {NULL}};

static PyGetSetDef response_getset[] = {
    {"headers", (getter)response_get_headers, NULL, "response headers (parsed on first access)", NULL},
    {"ok", (getter)response_get_ok, NULL, "True for status codes below 400", NULL},
    {NULL}};

PyTypeObject ResponseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "esbench.driver.transport._connection.RawResponse",
    .tp_doc = PyDoc_STR("An HTTP response whose body has not been parsed (see "
                        "esbench.driver.transport.http.PyRawResponse)."),
    .tp_basicsize = sizeof(ResponseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)response_init,
    .tp_dealloc = (destructor)response_dealloc,
    .tp_traverse = (traverseproc)response_traverse,
    .tp_clear = (inquiry)response_clear,
    .tp_members = response_members,
    .tp_getset = response_getset,
    .tp_repr = (reprfunc)response_repr,
};

PyObject *
configure_response(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"parse_head_fields", NULL};
    PyObject *parse;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$O:configure_response", names, &parse))
        return NULL;
    if (!PyCallable_Check(parse)) {
        PyErr_SetString(PyExc_TypeError, "configure_response(): parse_head_fields must be callable");
        return NULL;
    }
    Py_INCREF(parse);
    Py_XSETREF(parse_head_fields, parse);
    Py_RETURN_NONE;
}
