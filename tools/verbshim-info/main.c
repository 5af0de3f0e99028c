// SPDX-License-Identifier: MIT
/*
 * verbshim-info [-d DEV] [--json]
 * verbshim-info --binary FILE
 *
 * Exit: 0 a device with an active port was found, 2 none (the diagnosis
 * says why), 1 usage error.  --binary: 0 everything there, 3 it runs with
 * less (newer verbs answer "not supported"), 2 a library it needs missing
 * or unusable, 1 not readable.  info.h says how the program is put together.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

/* Where rdma-core looks (fixed when it is built).  VERBSHIM_INFO_ROOT
 * prefixes all three so that the diagnosis can be tested on a fake tree. */
#define SYSFS_IB "/sys/class/infiniband"
#define DEV_IB "/dev/infiniband"
#define CONFIG_DIR "/etc/libibverbs.d"

static void usage(FILE *f)
{
	fputs("usage: verbshim-info [-d DEV] [--json]\n"
	      "       verbshim-info --binary FILE\n"
	      "\n"
	      "What verbshim loaded (the rdma-core libraries, their version node\n"
	      "and provider ABI), the RDMA devices with their ports and GID\n"
	      "tables, and when no device is usable, why.\n"
	      "\n"
	      "  -d, --device DEV  only this device\n"
	      "  -j, --json        one JSON object instead of text\n"
	      "  -b, --binary FILE will FILE, a program linked with verbshim (of\n"
	      "                    any architecture), run here: the libraries it\n"
	      "                    can load, the nodes it was compiled with, what\n"
	      "                    is missing or too old here (read, not run)\n"
	      "  -h, --help        this help\n"
	      "\n"
	      "Exit status: 0 a device with an active port was found, 2 none\n"
	      "(the diagnosis says why), 1 usage error.  With --binary: 0 every\n"
	      "library there with every node the program was compiled with; 3 it\n"
	      "runs, with less: the functions listed answer \"not supported\" (an\n"
	      "older rdma-core, a suggested library absent); 2 a library it needs\n"
	      "is missing or unusable; 1 not readable or not linked with verbshim.\n"
	      "\n"
	      "Every program linked with libverbshim.a (this one too) reads:\n"
	      "  VERBSHIM_TRACE=all|failed|LIB|PATTERN|-EXCLUDED[,...]\n"
	      "                    one line per call through the shim, to stderr\n"
	      "                    or VERBSHIM_TRACE_FILE=PREFIX (PREFIX.<pid>)\n"
	      "  VERBSHIM_STATS=1  calls, failures by errno and times, at exit\n"
	      "  VERBSHIM_FAULT=FUNCTION:ERRNO:N|%N|P[@SEED][,...]\n"
	      "                    make the Nth, every Nth or a share P of the\n"
	      "                    calls fail as the library would\n"
	      "The data path (ibv_post_send, ibv_poll_cq, ...) is inline in\n"
	      "verbs.h and never enters the shim.  See docs/trace.md.\n", f);
}

const char *const knob_names[4] = { "VERBSHIM_TRACE", "VERBSHIM_STATS",
				    "VERBSHIM_FAULT", "VERBSHIM_TRACE_FILE" };

/* 0 run, 1 usage error, -1 help printed. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "binary", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = secure_getenv("VERBSHIM_INFO_ROOT");
	int c;

	while ((c = getopt_long(argc, argv, "d:jb:h", longopts, NULL)) != -1) {
		if (c == 'd') {
			o->device = optarg;
		} else if (c == 'j') {
			o->json = true;
		} else if (c == 'b') {
			o->binary = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return -1;
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "verbshim-info: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 1;
	}
	if (o->binary && (o->json || o->device)) {
		fprintf(stderr, "verbshim-info: --binary takes no -d or --json\n");
		return 1;
	}
	root = root ? root : "";
	o->root = root;
	fmt(o->sysfs, sizeof(o->sysfs), "%s%s", root, SYSFS_IB);
	fmt(o->devdir, sizeof(o->devdir), "%s%s", root, DEV_IB);
	fmt(o->confdir, sizeof(o->confdir), "%s%s", root, CONFIG_DIR);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct report r = { 0 };
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret < 0 ? EXIT_SUCCESS : EXIT_USAGE;
	if (o.binary)
		return binary_report(o.binary, o.root);
	ret = gather_report(&r, &o);
	if (ret) {
		fprintf(stderr, "verbshim-info: %s\n", strerror(ret));
		report_free(&r);
		return EXIT_NODEV;
	}
	diagnose(&r, &o);
	if (o.json)
		print_json(stdout, &r);
	else
		print_text(&r);
	report_free(&r);
	if (fflush(stdout)) {
		perror("verbshim-info: stdout");
		return EXIT_NODEV;
	}
	return r.usable ? EXIT_USABLE : EXIT_NODEV;
}
