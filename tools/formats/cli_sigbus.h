/* SIGBUS in the CLIs (clgather, clgather-mpi): one handler for both.
 *
 * Inputs are mapped and OUT is written through a mapping of a temporary
 * file. A mapped input that shrinks while in use (another process
 * truncates it) raises SIGBUS at the next access past its new end, in
 * whichever thread touches it (on a CPU device, each of the driver's
 * worker threads may); so would a write to OUT's mapping on a full disk
 * where its blocks could not be reserved up front. Nothing can resume after
 * that, but the handler keeps the promise about OUT: it removes the
 * temporary file where it has a name (an unnamed O_TMPFILE one,
 * cli_outfile.c, goes with the process; OUT itself is never touched before
 * the final link or rename), writes the message once, however many threads
 * fault, and exits with status `code`. */
#ifndef CLGATHER_CLI_SIGBUS_H
#define CLGATHER_CLI_SIGBUS_H

/* Install the handler, which writes `message` (a string that lives as long
 * as the process; a newline is not added) to stderr and _exits `code`. */
void cli_sigbus_install(const char *message, int code);

/* The temporary file the handler removes (NULL: none, or unnamed). */
void cli_sigbus_set_temp(const char *path);

#endif
