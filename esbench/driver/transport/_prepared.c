/*
 * send_prepared(): the transport's previous request again on an idle connection, the twin of
 * esbench.driver.transport.connectioncore.py_send_prepared. Part of esbench.driver.transport._connection (see
 * _connection.c).
 */
#include "_connection.h"

PyObject *
send_prepared(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "send_prepared(transport, method, target, body, headers, timeout)");
        return NULL;
    }
    if (current_timing == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "esbench.driver.transport._connection.configure() was not called");
        return NULL;
    }
    PyObject *transport = args[0], *method = args[1], *target = args[2], *body = args[3],
             *headers = args[4], *timeout = args[5];
    PyObject *last = NULL, *idle_lists = NULL, *idle = NULL, *next = NULL, *limit = NULL,
             *timing = NULL, *future = NULL, *result = NULL;
    ConnObject *connection = NULL;
    /* One idle list per node: its length is the node count (one attribute read fewer). */
    idle_lists = PyObject_GetAttr(transport, str_idle);
    if (idle_lists == NULL)
        goto end;
    if (!PyList_Check(idle_lists) || PyList_GET_SIZE(idle_lists) < 1)
        goto none;
    Py_ssize_t node_count = PyList_GET_SIZE(idle_lists);
    long long node = 0;
    if (node_count != 1) {
        next = PyObject_GetAttr(transport, str_next);
        if (next == NULL)
            goto end;
        long long n = PyLong_AsLongLong(next);
        if (n == -1 && PyErr_Occurred())
            goto end;
        node = n % node_count;
        if (node < 0)
            node += node_count; /* Python's % */
    }
    PyObject *per_node = PyObject_GetAttr(transport, str_last_request);
    if (per_node == NULL)
        goto end;
    if (!PyList_Check(per_node) || PyList_GET_SIZE(per_node) <= node) {
        Py_DECREF(per_node);
        goto none;
    }
    last = PyList_GET_ITEM(per_node, node);
    Py_INCREF(last);
    Py_DECREF(per_node);
    if (!PyTuple_Check(last) || PyTuple_GET_SIZE(last) != 7 || PyTuple_GET_ITEM(last, 0) != target ||
        PyTuple_GET_ITEM(last, 1) != headers || PyTuple_GET_ITEM(last, 2) != body)
        goto none;
    PyObject *last_method = PyTuple_GET_ITEM(last, 3);
    if (last_method != method) {
        int eq = PyObject_RichCompareBool(last_method, method, Py_EQ);
        if (eq < 0)
            goto end;
        if (!eq)
            goto none;
    }
    PyObject *parts = PyTuple_GET_ITEM(last, 5);
    long long sent = PyLong_AsLongLong(PyTuple_GET_ITEM(last, 6));
    if (sent == -1 && PyErr_Occurred())
        goto end;

    idle = PyList_GET_ITEM(idle_lists, node);
    if (!PyList_Check(idle)) {
        idle = NULL;
        goto none;
    }
    Py_INCREF(idle); /* Python code runs below (the timer): keep it whatever the transport does */
    while (PyList_GET_SIZE(idle) > 0) {
        Py_ssize_t at = PyList_GET_SIZE(idle) - 1;
        PyObject *candidate = PyList_GET_ITEM(idle, at);
        Py_INCREF(candidate);
        if (PyList_SetSlice(idle, at, at + 1, NULL) < 0) { /* idle.pop() */
            Py_DECREF(candidate);
            goto end;
        }
        int closed;
        if (PyObject_TypeCheck(candidate, &ConnType))
            closed = ((ConnObject *)candidate)->closed;
        else {
            PyObject *flag = PyObject_GetAttrString(candidate, "closed");
            closed = flag == NULL ? -1 : PyObject_IsTrue(flag);
            Py_XDECREF(flag);
        }
        if (closed < 0) {
            Py_DECREF(candidate);
            goto end;
        }
        if (!closed) {
            connection = (ConnObject *)candidate;
            break;
        }
        Py_DECREF(candidate);
    }
    if (connection == NULL)
        goto none;
    if (!PyObject_TypeCheck((PyObject *)connection, &ConnType)) {
        /* Not ours (cannot happen with the C core in use): back where it was, the slow path. */
        if (PyList_Append(idle, (PyObject *)connection) < 0)
            goto end;
        goto none;
    }
    if (node_count != 1) {
        PyObject *incremented = PyNumber_Add(next, one);
        if (incremented == NULL || PyObject_SetAttr(transport, str_next, incremented) < 0) {
            Py_XDECREF(incremented);
            goto end;
        }
        Py_DECREF(incremented);
    }
    int use_default = timeout == default_sentinel;
    if (!use_default && timeout != Py_None && !PyFloat_CheckExact(timeout) && !PyLong_CheckExact(timeout)) {
        /* Not a number: elastic_transport's DEFAULT is the other spelling of the default. */
        PyObject *answer = PyObject_CallOneArg(is_default, timeout);
        if (answer == NULL)
            goto end;
        use_default = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (use_default < 0)
            goto end;
    }
    if (use_default) {
        limit = PyObject_GetAttr(transport, str_timeout);
        if (limit == NULL)
            goto end;
    }
    else {
        limit = timeout;
        Py_INCREF(limit);
    }
    timing = NULL;
    if (PyContextVar_Get(current_timing, Py_None, &timing) < 0)
        goto end;
    PyObject *head_flag = PyUnicode_CompareWithASCIIString(method, "HEAD") == 0 ? Py_True : Py_False;
    if (PyErr_Occurred())
        goto end;
    PyObject *start = PyObject_CallNoArgs(perf_counter);
    if (start == NULL)
        goto end;
    double start_s = PyFloat_AsDouble(start);
    PyObject *send_args[4] = {parts, head_flag, start, limit};
    future = conn_send(connection, send_args, 4, NULL);
    Py_DECREF(start);
    if (future == NULL) {
        /* What RawHttpTransport._request does when send() raises: close, report, raise. */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyObject *r = PyObject_CallMethodNoArgs((PyObject *)connection, str_abort);
        Py_XDECREF(r);
        PyErr_Clear();
        PyObject *now = PyObject_CallNoArgs(perf_counter);
        if (now != NULL && timing != Py_None) {
            double end_s = PyFloat_AsDouble(now);
            if (Py_TYPE(timing) == &TimingType)
                timing_add((TimingObject *)timing, start_s, end_s, sent, connection->received_bytes);
            else {
                r = PyObject_CallMethod(timing, "observe", "ddLL", start_s, end_s, sent,
                                        connection->received_bytes);
                Py_XDECREF(r);
            }
        }
        Py_XDECREF(now);
        PyErr_Clear();
        PyErr_Restore(type, value, traceback);
        goto end;
    }
    Py_INCREF(idle);
    Py_XSETREF(connection->pool, idle);
    Py_INCREF(timing);
    Py_XSETREF(connection->timing, timing);
    connection->start = start_s;
    connection->sent = sent;
    if (node_count == 1 && current_repeat != NULL) {
        /* With several nodes each request goes to the next one: never repeated on one connection. */
        PyObject *repeat = NULL;
        if (PyContextVar_Get(current_repeat, Py_None, &repeat) < 0)
            goto end;
        if (repeat != Py_None) {
            Py_XSETREF(connection->repeat, repeat);
            Py_INCREF(parts);
            Py_XSETREF(connection->parts, parts);
            Py_INCREF(limit);
            Py_XSETREF(connection->limit, limit);
        }
        else
            Py_DECREF(repeat);
    }
    result = (PyObject *)connection;
    Py_INCREF(result);
    goto end;
none:
    result = Py_None;
    Py_INCREF(result);
end:
    Py_XDECREF(last);
    Py_XDECREF(idle_lists);
    Py_XDECREF(idle);
    Py_XDECREF(next);
    Py_XDECREF(limit);
    Py_XDECREF(timing);
    Py_XDECREF(future);
    Py_XDECREF((PyObject *)connection);
    return result;
}
