#!/usr/bin/env python3
"""The class archive's read-only pages and an idle relay's RSS (docs/BENCHMARKS.md, issue 18, "Giving the archive's
read-only pages back, tried").

  archive-pages.py pageout PID        process_madvise(MADV_PAGEOUT) over the relay's read-only archive mapping
  archive-pages.py watch PID SECONDS  that mapping's resident KiB every 0.2 s
  archive-pages.py touched PID SECONDS  clear the accessed bits, wait, print Rss/Referenced per archive mapping
  archive-pages.py folios FILE        in this process: map FILE read-only, touch it all, MADV_DONTNEED, touch 1 page
                                      in 64, print what is resident again (plain, then with MADV_RANDOM)
"""
import ctypes, mmap, os, sys, time

libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
SYS_pidfd_open, SYS_process_madvise = 434, 440
MADV_RANDOM, MADV_DONTNEED, MADV_PAGEOUT = 1, 4, 21
SUFFIXES = ('.aot', '.jsa')


def archive_maps(pid, perms=None):
    out = []
    for line in open(f'/proc/{pid}/maps'):
        f = line.split()
        if len(f) >= 6 and f[5].endswith(SUFFIXES) and (perms is None or f[1] == perms):
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            out.append((lo, hi, f[1], f[5]))
    return out


def smaps_field(pid, lo, field):
    inside = False
    for line in open(f'/proc/{pid}/smaps'):
        if '-' in line.split()[0] and not line.split()[0].endswith(':'):
            inside = int(line.split('-')[0], 16) == lo
        elif inside and line.startswith(field + ':'):
            return int(line.split()[1])
    return None


class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def pageout(pid):
    pfd = libc.syscall(SYS_pidfd_open, pid, 0)
    for lo, hi, perms, path in archive_maps(pid, 'r--p'):
        iov = iovec(lo, hi - lo)
        r = libc.syscall(SYS_process_madvise, pfd, ctypes.byref(iov), 1, MADV_PAGEOUT, 0)
        print(f'{path} {perms} {(hi - lo) >> 10} KiB: paged out {r} bytes', os.strerror(ctypes.get_errno()) if r < 0 else '')


def watch(pid, seconds):
    ro = archive_maps(pid, 'r--p')
    end = time.time() + seconds
    while time.time() < end:
        print(f'{time.time():.1f}', *(smaps_field(pid, lo, 'Rss') for lo, *_ in ro))
        time.sleep(0.2)


def touched(pid, seconds):
    with open(f'/proc/{pid}/clear_refs', 'w') as f:
        f.write('1')
    time.sleep(seconds)
    for lo, hi, perms, path in archive_maps(pid):
        print(path, perms, 'Rss', smaps_field(pid, lo, 'Rss'), 'Referenced', smaps_field(pid, lo, 'Referenced'))


def folios(path):
    size = min(os.path.getsize(path), 32 << 20) & ~0xfff
    with open(path, 'rb') as f:
        m = mmap.mmap(f.fileno(), size, mmap.MAP_PRIVATE, mmap.PROT_READ)
    lo = next(l for l in archive_maps(os.getpid()) if l[3] == os.path.realpath(path))[0]
    rss = lambda: smaps_field(os.getpid(), lo, 'Rss')
    for off in range(0, size, 4096):
        m[off]
    print('touched all', rss(), 'KiB')
    for advice, name in ((None, 'plain'), (MADV_RANDOM, 'MADV_RANDOM')):
        libc.madvise(lo, size, MADV_DONTNEED)
        if advice is not None:
            libc.madvise(lo, size, advice)
        print('after MADV_DONTNEED', rss(), 'KiB')
        for off in range(0, size, 4096 * 64):
            m[off]
        print(f'1 page in 64 touched ({name}):', rss(), 'KiB resident')


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'pageout':
        pageout(int(sys.argv[2]))
    elif cmd == 'watch':
        watch(int(sys.argv[2]), float(sys.argv[3]))
    elif cmd == 'touched':
        touched(int(sys.argv[2]), float(sys.argv[3]))
    elif cmd == 'folios':
        folios(sys.argv[2])
    else:
        sys.exit(__doc__)
