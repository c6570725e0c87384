"""Race control's view of its target cluster: client options for a secured cluster esbench
provisioned, and one-paragraph messages for TLS and authentication failures.

Messages name the hosts (without ``user:password@``), the option to change and the CA file in
use, never a credential.
"""

from __future__ import annotations

import ssl
from dataclasses import replace

import elastic_transport

from esbench.driver.settings import DEFAULT_TIMEOUT, timeout_text
from esbench.driver.transport.client import ClientOptions, host_for_display
from esbench.provision.security import SecurityMaterial


def secured_client_options(options: ClientOptions, security: SecurityMaterial) -> ClientOptions:
    """``options`` for a cluster secured with ``security`` (car ``x-pack-security``): HTTPS
    verified with its CA and its superuser's password, unless the user gave a CA or credentials.

    Raises:
        esbench.exceptions.ProvisionError: the installation's password file is unreadable.
    """
    ca_certs = str(security.ca_cert) if options.ca_certs is None else options.ca_certs
    if options.basic_auth_user is None and options.api_key is None:
        return replace(
            options,
            use_ssl=True,
            ca_certs=ca_certs,
            basic_auth_user=security.user,
            basic_auth_password=security.password(),
        )
    return replace(options, use_ssl=True, ca_certs=ca_certs)


def error_text(error: BaseException) -> str:
    """The detailed text of ``error`` (elastic_transport's errors show only "TLS error" or
    "Connection error" as ``str``; their ``message`` has the reason)."""
    message = getattr(error, "message", None)
    return message if isinstance(message, str) and message else str(error)


def _verification_failed(error: BaseException) -> bool:
    text = error_text(error)
    return "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text


def transport_failure_message(where: str, error: BaseException, options: ClientOptions | None) -> str | None:
    """A message for a TLS failure, or for plain HTTP sent to an HTTPS port; None for others.

    ``where`` is the hosts as shown to the user; ``options`` the client options in use.
    """
    ca = options.ca_certs if options is not None else None
    ca_text = f"the CA in ca_certs ({ca})" if ca else "the system's trusted CAs (no ca_certs given)"
    cause = error.__cause__ or error
    if isinstance(error, elastic_transport.TlsError) or isinstance(cause, ssl.SSLError):
        if _verification_failed(error) or isinstance(cause, ssl.SSLCertVerificationError):
            return (
                f"The TLS certificate of the cluster at {where} could not be verified with {ca_text}: "
                f"{error_text(error)}. Give the CA certificate that signed the node certificates with "
                "--client-options=\"use_ssl:true,ca_certs:'/path/to/ca.crt'\" (for a cluster esbench "
                "started with the x-pack-security car, the ca-certs path that 'esbench start' printed). "
                "Verification stays on; verify_certs:false would turn it off."
            )
        return (
            f"TLS with the cluster at {where} failed: {error_text(error)}. If the cluster speaks plain "
            "HTTP, drop use_ssl from --client-options (or use an http:// host); otherwise check its "
            "TLS settings."
        )
    if isinstance(error, elastic_transport.ConnectionError) and options is not None and not options.use_ssl:
        text = error_text(error)
        if "Connection lost" in text or "Malformed HTTP response" in text:
            return (
                f"The cluster at {where} closed the plain-HTTP connection: it may only speak HTTPS. "
                "Add use_ssl:true and ca_certs:'/path/to/ca.crt' to --client-options (or give "
                f"https:// hosts). Transport error: {text}."
            )
    return None


def unreachable_message(hosts: tuple[str, ...], error: Exception, options: ClientOptions | None) -> str:
    """One paragraph for a cluster that could not be asked (race control's first requests).

    ``hosts``: ``host:port`` strings as given; ``options``: the client options in use (None: the
    defaults). TLS failures get :func:`transport_failure_message`; HTTP 401/403 say which
    credentials or privilege to give; anything else names the hosts, the error and the client
    timeout that bounded the attempt.
    """
    status = getattr(error, "status_code", None) or getattr(getattr(error, "meta", None), "status", None)
    where = ", ".join(host_for_display(h) for h in hosts)
    tls = transport_failure_message(where, error, options)
    if tls is not None:
        return tls
    if status == 401:
        return (
            f"The cluster at {where} rejected the credentials (HTTP 401). Give them with "
            "--client-options=\"basic_auth_user:'USER',basic_auth_password:'PASS'\" or the environment "
            "variables ESBENCH_USERNAME/ESBENCH_PASSWORD (or ESBENCH_API_KEY)."
        )
    if status == 403:
        return f"The cluster at {where} refused access (HTTP 403): the user lacks the monitor privilege."
    timeout = timeout_text(options.timeout if options is not None else DEFAULT_TIMEOUT)
    return (
        f"Cannot reach Elasticsearch at {where}: {type(error).__name__}: {error_text(error)}. "
        "Check --target-hosts (host:port), that the node is running, and use_ssl/verify_certs in "
        f"--client-options for HTTPS. (A host that does not answer is given up after the client "
        f"timeout, {timeout}: --client-options=timeout:SECONDS.)"
    )
