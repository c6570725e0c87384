/*
 * RecorderCore.record(): one request, with the arithmetic of PyRecorderCore.record. Part of
 * esbench.metrics._accumulator (see _accumulator.c).
 */
#include "_accumulator.h"

#include <string.h>

/* record()'s parameters, keyword-only; the first five are required. */
static PyObject *record_names[10];

int
record_init_names(void)
{
    const char *names[10] = {"warmup", "end", "service_time", "latency", "processing_time",
                             "weight", "success", "error_type", "sent", "received"};
    return esb_intern_all(record_names, names, 10);
}

/* The request's sample, appended to self->samples (a bytearray) as 5 native doubles: start
 * (end - service time), latency, service time, processing time (s) and flags (1 warmup, 2 failed);
 * a failed request's error type (or unknown_error) goes to self->sample_errors under its position.
 * The Python twin is the last step of PyRecorderCore.record (accumulator.py). 0, or -1 with an
 * exception. */
static int
keep_sample(CoreObject *self, double end, double service_time, double latency, double processing_time,
            int warmup, int success, PyObject *error_type)
{
    PyObject *buf = self->samples;
    if (!PyByteArray_Check(buf)) {
        PyErr_SetString(PyExc_TypeError, "samples must be a bytearray or None");
        return -1;
    }
    double row[5] = {end - service_time, latency, service_time, processing_time,
                     (double)((warmup ? 1 : 0) | (success ? 0 : 2))};
    Py_ssize_t size = PyByteArray_GET_SIZE(buf);
    if (!success) {
        if (self->sample_errors == NULL || !PyDict_Check(self->sample_errors)) {
            PyErr_SetString(PyExc_TypeError, "sample_errors must be a dict when samples are kept");
            return -1;
        }
        PyObject *key = unknown_error;
        if (error_type != NULL) {
            int truthy = PyObject_IsTrue(error_type);
            if (truthy < 0)
                return -1;
            if (truthy)
                key = error_type;
        }
        PyObject *position = PyLong_FromSsize_t(size / (Py_ssize_t)sizeof(row));
        if (position == NULL)
            return -1;
        int rc = PyDict_SetItem(self->sample_errors, position, key);
        Py_DECREF(position);
        if (rc < 0)
            return -1;
    }
    /* bytearray grows by over-allocation: amortised O(1) per request. */
    if (PyByteArray_Resize(buf, size + (Py_ssize_t)sizeof(row)) < 0)
        return -1;
    memcpy(PyByteArray_AS_STRING(buf) + size, row, sizeof(row));
    return 0;
}

PyObject *
core_record(CoreObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (max_recordable_us < 0) {
        PyErr_SetString(PyExc_RuntimeError, "esbench.metrics._accumulator.configure() was not called");
        return NULL;
    }
    PyObject *given[10];
    if (esb_bind("record", args, nargs, kwnames, record_names, 10, 0, 5, given) < 0)
        return NULL;
    PyObject *o_warmup = given[0], *o_end = given[1], *o_service = given[2], *o_latency = given[3],
             *o_processing = given[4], *o_weight = given[5], *o_success = given[6],
             *o_error_type = given[7], *o_sent = given[8], *o_received = given[9];
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
    if (self->samples != NULL && self->samples != Py_None &&
        keep_sample(self, end, service_time, latency, processing_time, warmup, success, o_error_type) < 0)
        goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    Py_DECREF(phase_obj);
    return result;
}
