/*
 * Declarations shared by the C files of esbench.driver.transport._connection (see _connection.c).
 */
#ifndef ESBENCH_DRIVER_CONNECTION_H
#define ESBENCH_DRIVER_CONNECTION_H

#include "../../_capi.h"

/* Set by configure() (_connection.c). */
ESB_HIDDEN extern PyObject *head_fields;      /* dict: head bytes -> 5-tuple */
ESB_HIDDEN extern PyObject *perf_counter;     /* time.perf_counter */
ESB_HIDDEN extern PyObject *get_running_loop; /* asyncio.get_running_loop */
ESB_HIDDEN extern PyObject *raw_response;     /* esbench.driver.transport.http.RawResponse */
ESB_HIDDEN extern PyObject *raw_head_kwnames; /* ("raw_head",) */
ESB_HIDDEN extern PyObject *default_sentinel; /* failures.DEFAULT: the transport's own timeout */
ESB_HIDDEN extern PyObject *is_default;       /* failures.is_default: elastic_transport's DEFAULT too */
ESB_HIDDEN extern PyObject *current_timing;   /* ContextVar of the client's RequestTiming */
ESB_HIDDEN extern PyObject *current_repeat;   /* ContextVar of the client's Repeat (repeat.py) */
ESB_HIDDEN extern PyObject *one;              /* 1 */

/* Interned names (module init). */
ESB_HIDDEN extern PyObject *str_on_data, *str_arm, *str_disarm, *str_create_future, *str_done,
    *str_set_result, *str_write, *str_writelines, *str_observe, *str_abort, *str_last_request,
    *str_next, *str_idle, *str_timeout;
ESB_HIDDEN extern PyObject *send_names[4];


typedef struct {
    PyObject_HEAD
    PyObject *body;     /* bytearray */
    PyObject *buffer;   /* bytearray */
    PyObject *future;
    PyObject *loop;
    PyObject *raw_head; /* bytes */
    PyObject *timer;
    PyObject *transport;
    PyObject *pool;   /* the idle list of a request sent by send_prepared, else NULL */
    PyObject *timing; /* its RequestTiming (or None) */
    PyObject *repeat; /* its Repeat, when the connection may send it again (repeat.py), else NULL */
    PyObject *parts;  /* what to write again: the request's parts (tuple) */
    PyObject *limit;  /* its timeout: seconds or None */
    /* Caches, not attributes: bound methods of the loop and transport they were taken from, and
     * the previous response head with its framing fields (a task's responses repeat it). */
    PyObject *methods_loop, *create_future;
    PyObject *methods_transport, *write, *writelines;
    PyObject *last_head, *last_fields;
    double start;
    long long sent;
    char chunked, gzip, head, received, closed, keep_alive, used;
    long long expected, status, received_bytes;
    double deadline, timer_due, end;
} ConnObject;

typedef struct {
    PyObject_HEAD
    PyObject *status;
    PyObject *body;
    PyObject *headers;  /* None until read (with raw_head) */
    PyObject *raw_head; /* bytes */
} ResponseObject;

typedef struct {
    PyObject_HEAD
    PyObject *record;  /* TaskRecorder.record */
    PyObject *control; /* the step's stop flags: .cancelled, .completed */
    long long total, iterations, warmup_iterations;
    double deadline, warmup_end, last_start;
    char time_based;
} RepeatObject;

typedef struct {
    PyObject_HEAD
    double start;
    double end;
    long long sent;
    long long received;
} TimingObject;

ESB_HIDDEN extern PyTypeObject ConnType;     /* _connection.c */
ESB_HIDDEN extern PyTypeObject ResponseType; /* _response.c */
ESB_HIDDEN extern PyTypeObject TimingType;   /* _timing.c */
ESB_HIDDEN extern PyTypeObject RepeatType;   /* _repeat.c */

/* _response.c */
ESB_HIDDEN PyObject *new_response(long long status, PyObject *body, PyObject *head);
ESB_HIDDEN PyObject *configure_response(PyObject *module, PyObject *args, PyObject *kwds);
/* _connection.c */
ESB_HIDDEN int reset(ConnObject *self);
ESB_HIDDEN int clear_response(ConnObject *self);
ESB_HIDDEN int expire(ConnObject *self, double start, PyObject *limit);
ESB_HIDDEN int write_parts(ConnObject *self, PyObject *parts);
ESB_HIDDEN PyObject *conn_send(ConnObject *self, PyObject *const *given, Py_ssize_t nargs,
                               PyObject *kwnames);
/* _timing.c */
ESB_HIDDEN int timing_init_names(void);
ESB_HIDDEN void timing_add(TimingObject *self, double start, double end, long long sent,
                           long long received);
/* _received.c */
ESB_HIDDEN PyObject *conn_data_received(ConnObject *self, PyObject *data);
/* _repeat.c */
ESB_HIDDEN int repeat_init_names(void);
ESB_HIDDEN int repeat_next(ConnObject *self);
/* _prepared.c */
ESB_HIDDEN PyObject *send_prepared(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
