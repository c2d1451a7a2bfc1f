// SPDX-License-Identifier: GPL-2.0
/*
 * fibdrv: /dev/fibonacci computes Fibonacci numbers in the kernel.
 *
 * lseek() selects n, read() writes F(n). Each open file has its own
 * algorithm and output format; nothing global is locked, so any number of
 * threads and processes may read at once. A read runs three stages, each a
 * noinline function with a stable name so that fibtrace can split its time:
 * fibdrv_compute(), fibdrv_format() and fibdrv_copy(). See docs/fibdrv.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fibdrv.h"
#include "fibdrv_uapi.h"

/*
 * The misc device's name: /dev/FIBDRV_DEVICE_NAME and
 * /sys/class/misc/FIBDRV_DEVICE_NAME/. A build under another module name
 * (scripts/build-module.sh, for make perf-gate) sets it to that name so that
 * two builds can be loaded side by side.
 */
#ifndef FIBDRV_DEVICE_NAME
#define FIBDRV_DEVICE_NAME "fibonacci"
#endif

#define FIBDRV_DEFAULT_MAX_N 1000000ULL

static unsigned long max_n = FIBDRV_DEFAULT_MAX_N;
module_param(max_n, ulong, 0444);
MODULE_PARM_DESC(max_n, "largest n a read accepts (default 1000000)");

static char *default_algo = "bn-fdouble-karatsuba";
module_param(default_algo, charp, 0444);
MODULE_PARM_DESC(default_algo, "algorithm of a newly opened file");

static unsigned int default_algo_id;

/*
 * Per-open state. fibtrace reads algo_id through CO-RE against this
 * module's BTF: keep the name and the field names stable.
 */
struct fibdrv_file {
	u32 algo_id; /* index into fib_algos[] */
	u32 format; /* FIBDRV_FORMAT_* */
};

static unsigned int fib_algo_id(const struct fib_algo *algo)
{
	return algo - fib_algos;
}

/* The largest n this algorithm accepts on this device. */
static u64 fibdrv_limit(const struct fib_algo *algo)
{
	return min_t(u64, algo->max_n, max_n);
}

noinline int fibdrv_compute(const struct fib_algo *algo, u64 n,
			    struct fib_value *value)
{
	return fib_compute(algo, n, value);
}

/* Formats @value into a new kvmalloc'd buffer returned in @out. */
noinline long fibdrv_format(struct fib_value *value,
			    enum fib_format format, size_t size, char **out)
{
	long len = fib_format_size(value, format);
	char *buf;

	if (len < 0)
		return len;
	if ((size_t)len > size)
		return -EMSGSIZE;
	/* The reader's cgroup pays; over its limit, ENOMEM (bn_compat.h) */
	buf = kvmalloc(max_t(long, len, 1), GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!buf)
		return -ENOMEM;
	len = fib_format(value, format, buf, len);
	if (len < 0) {
		kvfree(buf);
		return len;
	}
	*out = buf;
	return len;
}

noinline ssize_t fibdrv_copy(char __user *ubuf, const char *kbuf, size_t len)
{
	if (copy_to_user(ubuf, kbuf, len))
		return -EFAULT;
	return len;
}

/*
 * At least this many bytes for F(@n) in @format, known without computing
 * it and without a call fibtrace traces: F(n) >= phi^(n-2) for n >= 1, so
 * it has at least floor((n-2) log10 phi) + 1 digits and floor((n-2) log2
 * phi) + 1 bits (binary: whole 64-bit limbs). log10 phi = 0.2089876...,
 * log2 phi = 0.6942419..., rounded down here. 0 when it cannot tell.
 */
static size_t fibdrv_min_len(u64 n, enum fib_format format)
{
	u64 bits;

	if (n < 2 || n - 2 > U64_MAX / 1000000)
		return 0;
	if (format == FIBDRV_FORMAT_DEC)
		return (n - 2) * 208987 / 1000000 + 1;
	bits = (n - 2) * 694241 / 1000000 + 1;
	return (bits + 63) / 64 * sizeof(u64);
}

/*
 * The result is computed afresh on every read: the module caches nothing,
 * so each read's cost is the algorithm's and fibtrace measures it.
 */
noinline ssize_t fib_read(struct file *file, char __user *buf, size_t size,
			  loff_t *offset)
{
	struct fibdrv_file *ff = file->private_data;
	const struct fib_algo *algo = &fib_algos[READ_ONCE(ff->algo_id)];
	enum fib_format format = READ_ONCE(ff->format);
	struct fib_value value = FIB_VALUE_INIT;
	char *out = NULL;
	ssize_t ret;
	long len;
	u64 n;

	if (*offset < 0 || *offset > max_n)
		return -EINVAL;
	n = *offset;
	/*
	 * A buffer too small for the value is refused before any work, where
	 * the size is known exactly without computing (n within the
	 * algorithm's limit; otherwise the computation says why it refuses).
	 */
	if (n <= fibdrv_limit(algo) && fibdrv_min_len(n, format) > size)
		return -EMSGSIZE;
	ret = fibdrv_compute(algo, n, &value);
	if (ret)
		return ret;
	len = fibdrv_format(&value, format, size, &out);
	fib_value_release(&value);
	if (len < 0)
		return len;
	ret = fibdrv_copy(buf, out, len);
	kvfree(out);
	return ret;
}

static ssize_t fib_write(struct file *file, const char __user *buf,
			 size_t size, loff_t *offset)
{
	struct fibdrv_file *ff = file->private_data;
	char name[FIBDRV_ALGO_NAME_MAX];
	const struct fib_algo *algo;

	if (size >= sizeof(name))
		return -ENAMETOOLONG;
	if (copy_from_user(name, buf, size))
		return -EFAULT;
	algo = fib_algo_find(name, size);
	if (!algo)
		return -EINVAL;
	WRITE_ONCE(ff->algo_id, fib_algo_id(algo));
	return size;
}

static loff_t fib_llseek(struct file *file, loff_t offset, int whence)
{
	loff_t base;
	loff_t pos;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = file->f_pos;
		break;
	case SEEK_END:
		base = max_n;
		break;
	default:
		return -EINVAL;
	}
	if (check_add_overflow(base, offset, &pos) || pos < 0 || pos > max_n)
		return -EINVAL;
	file->f_pos = pos;
	return pos;
}

static long fib_ioctl_set_algo(struct fibdrv_file *ff, void __user *arg)
{
	struct fibdrv_algo_sel sel;
	const struct fib_algo *algo;

	if (copy_from_user(&sel, arg, sizeof(sel)))
		return -EFAULT;
	algo = fib_algo_find(sel.name, strnlen(sel.name, sizeof(sel.name)));
	if (!algo)
		return -EINVAL;
	WRITE_ONCE(ff->algo_id, fib_algo_id(algo));
	return 0;
}

static long fib_ioctl_get_algo(struct fibdrv_file *ff, void __user *arg)
{
	struct fibdrv_algo_sel sel = {};

	strscpy(sel.name, fib_algos[READ_ONCE(ff->algo_id)].name,
		sizeof(sel.name));
	return copy_to_user(arg, &sel, sizeof(sel)) ? -EFAULT : 0;
}

/*
 * The size a read at the current position needs, from a formula: F(n) is
 * not computed (fib_result_size() is exact; in the rare case it cannot
 * decide, the value is computed as a read would).
 */
static long fib_ioctl_result_size(struct file *file, u64 __user *arg)
{
	struct fibdrv_file *ff = file->private_data;
	const struct fib_algo *algo = &fib_algos[READ_ONCE(ff->algo_id)];
	u32 format = READ_ONCE(ff->format);
	struct fib_value value = FIB_VALUE_INIT;
	long len;

	if (file->f_pos > max_n)
		return -EINVAL;
	len = fib_check_n(algo, file->f_pos);
	if (len)
		return len;
	len = fib_result_size(file->f_pos, format);
	if (len == -EAGAIN) {
		len = fibdrv_compute(algo, file->f_pos, &value);
		if (!len)
			len = fib_format_size(&value, format);
		fib_value_release(&value);
	}
	if (len < 0)
		return len;
	return put_user((u64)len, arg);
}

/*
 * The calibration targets: empty, never inlined, with a side effect the
 * compiler must keep, so each call is a real call a tracer can probe.
 */
static noinline u64 fibdrv_calib0(u64 x)
{
	asm volatile("" : "+r"(x));
	return x;
}

/* Not the same body: identical functions would be folded into one symbol. */
static noinline u64 fibdrv_calib1(u64 x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

/*
 * A tail call of fibdrv_calib1 (a jump: its return goes straight to this
 * function's caller), as bn_sqr_n makes to bn_sqr_basecase. Return probes
 * (rethook: kprobes, kprobe.multi) then run both exits in one pass of their
 * trampoline, which costs less than two returns: fibtrace measures that.
 */
static noinline u64 fibdrv_calib2(u64 x)
{
	asm volatile("" : "+r"(x));
	return fibdrv_calib1(x ^ 1);
}

/*
 * Between two calibration calls: yield, and stop on any pending signal, not
 * only a fatal one, so that its handler runs now rather than after up to
 * 10^6 calls. -ERESTARTSYS: after a handler with SA_RESTART the ioctl starts
 * again from the beginning (its partial sums are dropped), otherwise EINTR.
 */
static bool calib_interrupted(void)
{
	bn_resched(); /* as bn_should_stop(): a tasks-RCU quiescent state too */
	return signal_pending(current);
}

/*
 * The calls of @fn, each timed alone, after F(@c->work_n) when it is not 0
 * (inlined with a constant @fn, so no indirect call, which retpolines would
 * make dearer than a traced function's call).
 */
static __always_inline long calib_loop(u64 (*fn)(u64), const struct fib_algo *algo,
				       struct fibdrv_calib *c)
{
	struct fib_value value = FIB_VALUE_INIT;
	u64 start, x = 0;
	long err;
	u32 i;

	c->ns = 0;
	for (i = 0; i < c->calls; i++) {
		if (c->work_n) {
			err = fib_compute(algo, c->work_n, &value);
			fib_value_release(&value);
			if (err)
				return err;
		}
		start = ktime_get_ns();
		x = fn(x + i);
		c->ns += ktime_get_ns() - start;
		if (calib_interrupted())
			return -ERESTARTSYS;
	}
	return 0;
}

/* FIBDRV_CALIB_COMPUTE: @c->calls computations of F(@c->work_n) and their releases, each timed. */
static long calib_compute(const struct fib_algo *algo, struct fibdrv_calib *c)
{
	struct fib_value value = FIB_VALUE_INIT;
	u64 start;
	long err;
	u32 i;

	c->ns = 0;
	for (i = 0; i < c->calls; i++) {
		start = ktime_get_ns();
		err = fib_compute(algo, c->work_n, &value);
		fib_value_release(&value);
		c->ns += ktime_get_ns() - start;
		if (err)
			return err;
		if (calib_interrupted())
			return -ERESTARTSYS;
	}
	return 0;
}

static long fib_ioctl_calibrate(struct fibdrv_file *ff, struct fibdrv_calib __user *arg)
{
	const struct fib_algo *algo = &fib_algos[READ_ONCE(ff->algo_id)];
	struct fibdrv_calib c;
	long err;

	/*
	 * Up to a million calls of F(max_n) in one syscall: fibtrace's, which
	 * runs with CAP_PERFMON (or root), not any reader of the device.
	 */
	if (!perfmon_capable())
		return -EPERM;
	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if ((c.func >= FIBDRV_CALIB_FUNCS && c.func != FIBDRV_CALIB_COMPUTE) || !c.calls ||
	    c.calls > FIBDRV_CALIB_MAX_CALLS)
		return -EINVAL;
	if (c.func == FIBDRV_CALIB_COMPUTE && !c.work_n)
		return -EINVAL;
	if (c.work_n > max_n)
		return -EINVAL; /* as a read of it would be */
	if (c.work_n) {
		err = fib_check_n(algo, c.work_n);
		if (err)
			return err;
	}
	if (c.func == FIBDRV_CALIB_COMPUTE)
		err = calib_compute(algo, &c);
	else if (c.func == 0)
		err = calib_loop(fibdrv_calib0, algo, &c);
	else if (c.func == 1)
		err = calib_loop(fibdrv_calib1, algo, &c);
	else
		err = calib_loop(fibdrv_calib2, algo, &c);
	if (err)
		return err;
	return copy_to_user(arg, &c, sizeof(c)) ? -EFAULT : 0;
}

static long fib_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fibdrv_file *ff = file->private_data;

	switch (cmd) {
	case FIBDRV_IOC_SET_ALGO:
		return fib_ioctl_set_algo(ff, (void __user *)arg);
	case FIBDRV_IOC_GET_ALGO:
		return fib_ioctl_get_algo(ff, (void __user *)arg);
	case FIBDRV_IOC_SET_FORMAT:
		if (arg != FIBDRV_FORMAT_DEC && arg != FIBDRV_FORMAT_BIN)
			return -EINVAL;
		WRITE_ONCE(ff->format, arg);
		return 0;
	case FIBDRV_IOC_RESULT_SIZE:
		return fib_ioctl_result_size(file, (u64 __user *)arg);
	case FIBDRV_IOC_CALIBRATE:
		return fib_ioctl_calibrate(ff, (struct fibdrv_calib __user *)arg);
	default:
		return -ENOTTY;
	}
}

static int fib_open(struct inode *inode, struct file *file)
{
	struct fibdrv_file *ff = kzalloc(sizeof(*ff), GFP_KERNEL_ACCOUNT);

	if (!ff)
		return -ENOMEM;
	ff->algo_id = default_algo_id;
	ff->format = FIBDRV_FORMAT_DEC;
	file->private_data = ff;
	return 0;
}

static int fib_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations fib_fops = {
	.owner = THIS_MODULE,
	.open = fib_open,
	.release = fib_release,
	.read = fib_read,
	.write = fib_write,
	.llseek = fib_llseek,
	.unlocked_ioctl = fib_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/*
 * /sys/class/misc/FIBDRV_DEVICE_NAME/algorithms (by default
 * /sys/class/misc/fibonacci/algorithms): "name<TAB>max_n" per line.
 */
static ssize_t algorithms_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < fib_algo_count; i++)
		len += sysfs_emit_at(buf, len, "%s\t%llu\n", fib_algos[i].name,
				     fibdrv_limit(&fib_algos[i]));
	return len;
}
static DEVICE_ATTR_RO(algorithms);

static struct attribute *fib_attrs[] = {
	&dev_attr_algorithms.attr,
	NULL,
};
ATTRIBUTE_GROUPS(fib);

static struct miscdevice fib_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = FIBDRV_DEVICE_NAME,
	.fops = &fib_fops,
	.groups = fib_groups,
	.mode = 0666,
};

static int __init fibdrv_init(void)
{
	const struct fib_algo *algo;
	int ret;

	algo = fib_algo_find(default_algo, strlen(default_algo));
	if (!algo) {
		pr_err("unknown default_algo '%s'\n", default_algo);
		return -EINVAL;
	}
	default_algo_id = fib_algo_id(algo);
	ret = misc_register(&fib_misc);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", fib_misc.name, ret);
		return ret;
	}
	pr_info("loaded: default %s, max_n %lu\n", algo->name, max_n);
	return 0;
}

static void __exit fibdrv_exit(void)
{
	misc_deregister(&fib_misc);
}

module_init(fibdrv_init);
module_exit(fibdrv_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Fibonacci numbers from a character device");
MODULE_VERSION("0.2");
