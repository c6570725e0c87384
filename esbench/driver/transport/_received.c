/*
 * ConnectionCore.data_received(): the request end first, then the common response in C, every
 * other one to the Python parser; and the bookkeeping of a request sent by send_prepared when its
 * response is whole (or, with a repeat, the request sent again: _repeat.c). Part of esbench.driver.transport._connection (see _connection.c).
 */
#include "_connection.h"
#include <string.h>

/* The methods of the futures the loop makes (asyncio's C Future), looked up once per type. */
static PyTypeObject *future_type = NULL;
static PyObject *future_done = NULL, *future_set_result = NULL;

static int
future_methods(PyObject *future)
{
    if (Py_TYPE(future) == future_type)
        return 0;
    PyObject *done = PyObject_GetAttr((PyObject *)Py_TYPE(future), str_done);
    if (done == NULL)
        return -1;
    PyObject *set_result = PyObject_GetAttr((PyObject *)Py_TYPE(future), str_set_result);
    if (set_result == NULL) {
        Py_DECREF(done);
        return -1;
    }
    Py_XSETREF(future_done, done);
    Py_XSETREF(future_set_result, set_result);
    Py_INCREF(Py_TYPE(future));
    Py_XSETREF(future_type, Py_TYPE(future));
    return 0;
}

/* The fields of a cached head, or 0 if the response is not one the C path handles. */
static int
fast_fields(ConnObject *self, PyObject *fields, long long *status, long long *expected, int *keep_alive)
{
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != 5)
        return 0;
    PyObject *chunked = PyTuple_GET_ITEM(fields, 2);
    PyObject *gzipped = PyTuple_GET_ITEM(fields, 4);
    if (chunked != Py_False || gzipped != Py_False)
        return 0;
    *status = PyLong_AsLongLong(PyTuple_GET_ITEM(fields, 0));
    *expected = PyLong_AsLongLong(PyTuple_GET_ITEM(fields, 1));
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *keep_alive = PyTuple_GET_ITEM(fields, 3) == Py_True;
    if (self->head || *status == 204 || *status == 304 || (100 <= *status && *status < 200))
        *expected = 0;
    else if (*expected < 0)
        return 0; /* body until close: the Python parser */
    return 1;
}

/* rawconnection._Connection._complete(): the bookkeeping of a request sent by send_prepared. */
static int
complete(ConnObject *self)
{
    PyObject *pool = self->pool, *timing = self->timing;
    self->pool = NULL;
    self->timing = NULL;
    Py_CLEAR(self->repeat);
    int rc = 0;
    if (timing != NULL && Py_TYPE(timing) == &TimingType) {
        timing_add((TimingObject *)timing, self->start, self->end, self->sent, self->received_bytes);
    }
    else if (timing != NULL && timing != Py_None) {
        PyObject *args[5] = {timing, PyFloat_FromDouble(self->start), PyFloat_FromDouble(self->end),
                             PyLong_FromLongLong(self->sent), PyLong_FromLongLong(self->received_bytes)};
        if (args[1] == NULL || args[2] == NULL || args[3] == NULL || args[4] == NULL)
            rc = -1;
        else {
            PyObject *r = PyObject_VectorcallMethod(str_observe, args,
                                                    5, NULL);
            if (r == NULL)
                rc = -1;
            Py_XDECREF(r);
        }
        for (int i = 1; i < 5; i++)
            Py_XDECREF(args[i]);
    }
    if (rc == 0) {
        self->used = 1;
        int reusable = !self->closed && self->keep_alive && PyByteArray_GET_SIZE(self->buffer) == 0;
        if (reusable) {
            rc = PyList_Append(pool, (PyObject *)self);
        }
        else {
            PyObject *r = PyObject_CallMethodNoArgs((PyObject *)self, str_abort);
            if (r == NULL)
                rc = -1;
            Py_XDECREF(r);
        }
    }
    Py_XDECREF(pool);
    Py_XDECREF(timing);
    return rc;
}

PyObject *
conn_data_received(ConnObject *self, PyObject *data)
{
    if (perf_counter == NULL || head_fields == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "esbench.driver.transport._connection.configure() was not called");
        return NULL;
    }
    /* Taken first: if these bytes complete the response, this is its end (parsing excluded). */
    PyObject *now = PyObject_CallNoArgs(perf_counter);
    if (now == NULL)
        return NULL;
    PyObject *head = NULL, *body = NULL, *response = NULL, *result = NULL, *future = NULL;
    if (!PyBytes_CheckExact(data) || self->status != 0 || self->buffer == NULL ||
        !PyByteArray_Check(self->buffer) || PyByteArray_GET_SIZE(self->buffer) != 0 ||
        self->future == NULL || self->future == Py_None)
        goto python;
    const char *bytes = PyBytes_AS_STRING(data);
    Py_ssize_t size = PyBytes_GET_SIZE(data);
    const char *found = memmem(bytes, (size_t)size, "\r\n\r\n", 4);
    if (found == NULL)
        goto python;
    Py_ssize_t head_len = found - bytes;
    PyObject *fields;
    if (self->last_head != NULL && PyBytes_GET_SIZE(self->last_head) == head_len &&
        memcmp(PyBytes_AS_STRING(self->last_head), bytes, (size_t)head_len) == 0) {
        /* The previous response's head again: its bytes object and fields (no hash, no copy). */
        head = self->last_head;
        Py_INCREF(head);
        fields = self->last_fields;
    }
    else {
        head = PyBytes_FromStringAndSize(bytes, head_len);
        if (head == NULL)
            goto error;
        fields = PyDict_GetItemWithError(head_fields, head); /* borrowed */
        if (fields == NULL) {
            if (PyErr_Occurred())
                goto error;
            goto python; /* a new head: parsed and cached by the Python parser */
        }
        Py_INCREF(head);
        Py_XSETREF(self->last_head, head);
        Py_INCREF(fields);
        Py_XSETREF(self->last_fields, fields);
    }
    long long status, expected;
    int keep_alive;
    if (!fast_fields(self, fields, &status, &expected, &keep_alive))
        goto python;
    Py_ssize_t rest = size - head_len - 4;
    if (expected > rest)
        goto python; /* the body continues in later reads */
    future = self->future;
    Py_INCREF(future); /* a strong reference: Python code runs below (complete, set_result) */
    if (future_methods(future) < 0)
        goto error;
    PyObject *done = PyObject_CallOneArg(future_done, future);
    if (done == NULL)
        goto error;
    int is_done = PyObject_IsTrue(done);
    Py_DECREF(done);
    if (is_done < 0)
        goto error;
    if (is_done)
        goto python;

    /* From here on the outcome is the Python parser's, field by field. */
    self->received = 1;
    self->received_bytes += size;
    Py_INCREF(head);
    Py_XSETREF(self->raw_head, head);
    self->status = status;
    self->gzip = 0;
    if (!keep_alive)
        self->keep_alive = 0;
    self->expected = expected;
    self->end = PyFloat_AsDouble(now);
    if (rest > expected) {
        /* Bytes after the body (nothing should follow a response we did not ask for): kept. */
        Py_ssize_t old = PyByteArray_GET_SIZE(self->buffer);
        Py_ssize_t extra = rest - (Py_ssize_t)expected;
        if (PyByteArray_Resize(self->buffer, old + extra) < 0)
            goto error;
        memcpy(PyByteArray_AS_STRING(self->buffer) + old, found + 4 + expected, (size_t)extra);
    }
    if (self->repeat != NULL && self->pool != NULL && self->pool != Py_None) {
        /* The client repeats this request (repeat.py): recorded and sent again, no response. */
        int handled = repeat_next(self);
        if (handled < 0)
            goto error;
        if (handled) {
            result = Py_None;
            Py_INCREF(result);
            goto end;
        }
    }
    body = PyBytes_FromStringAndSize(found + 4, (Py_ssize_t)expected);
    if (body == NULL)
        goto error;
    if (raw_response == (PyObject *)&ResponseType) {
        response = new_response(status, body, head);
    }
    else {
        PyObject *status_obj = PyLong_FromLongLong(status);
        if (status_obj == NULL)
            goto error;
        PyObject *call_args[3] = {status_obj, body, head};
        response = PyObject_Vectorcall(raw_response, call_args, 2, raw_head_kwnames);
        Py_DECREF(status_obj);
    }
    if (response == NULL)
        goto error;
    if (self->pool != NULL && self->pool != Py_None && complete(self) < 0)
        goto error;
    PyObject *set_args[2] = {future, response};
    PyObject *r = PyObject_Vectorcall(future_set_result, set_args, 2, NULL);
    if (r == NULL)
        goto error;
    Py_DECREF(r);
    result = Py_None;
    Py_INCREF(result);
    goto end;
python:
    result = PyObject_CallMethodObjArgs((PyObject *)self, str_on_data, data, now, NULL);
    goto end;
error:
    result = NULL;
end:
    Py_XDECREF(head);
    Py_XDECREF(body);
    Py_XDECREF(response);
    Py_XDECREF(future);
    Py_DECREF(now);
    return result;
}
