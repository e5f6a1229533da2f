"""A case-insensitive, case-preserving view of a directory, as macOS (APFS, HFS+) and Windows (NTFS) give by
default: names are compared after NFD normalisation and Unicode case folding, and stored as first spelled.

    /usr/bin/python3 casefold_fs.py BACKING MOUNTPOINT

mounts it (FUSE, in the foreground) until MOUNTPOINT is unmounted. Needs Debian's python3-fusepy and
libfuse2 (scripts/setup-system.sh) and /dev/fuse. Used by test/support/casefold-mount.ts.
"""
import os
import sys
import unicodedata

from fusepy import FUSE, Operations


def fold(name):
    return unicodedata.normalize('NFD', name).casefold()


class CaseFoldingView(Operations):
    use_ns = True

    def __init__(self, backing):
        self.backing = backing

    def real(self, path):
        """The backing path of a view path: each name is the existing entry it folds to, if any."""
        real = self.backing
        for name in filter(None, path.split('/')):
            candidate = os.path.join(real, name)
            if not os.path.lexists(candidate) and os.path.isdir(real):
                wanted = fold(name)
                candidate = next((os.path.join(real, entry) for entry in os.listdir(real) if fold(entry) == wanted), candidate)
            real = candidate
        return real

    def getattr(self, path, fh=None):
        st = os.lstat(self.real(path)) if fh is None else os.fstat(fh)
        keys = ('st_mode', 'st_ino', 'st_nlink', 'st_uid', 'st_gid', 'st_size', 'st_blocks')
        attrs = {key: getattr(st, key) for key in keys}
        attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
        return attrs

    def readdir(self, path, fh):
        return ['.', '..'] + os.listdir(self.real(path))

    def statfs(self, path):
        sv = os.statvfs(self.real(path))
        keys = ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail', 'f_ffree', 'f_files', 'f_flag', 'f_frsize', 'f_namemax')
        return {key: getattr(sv, key) for key in keys}

    def mkdir(self, path, mode): os.mkdir(self.real(path), mode)
    def rmdir(self, path): os.rmdir(self.real(path))
    def unlink(self, path): os.unlink(self.real(path))
    def rename(self, old, new): os.rename(self.real(old), self.real(new))
    def link(self, target, source): os.link(self.real(source), self.real(target))
    def symlink(self, target, source): os.symlink(source, self.real(target))
    def readlink(self, path): return os.readlink(self.real(path))
    def chmod(self, path, mode): os.chmod(self.real(path), mode)
    def chown(self, path, uid, gid): os.chown(self.real(path), uid, gid)
    def utimens(self, path, times=None): os.utime(self.real(path), ns=times)
    def open(self, path, flags): return os.open(self.real(path), flags)
    def create(self, path, mode, fi=None): return os.open(self.real(path), os.O_RDWR | os.O_CREAT, mode)
    def read(self, path, size, offset, fh): return os.pread(fh, size, offset)
    def write(self, path, data, offset, fh): return os.pwrite(fh, data, offset)
    def flush(self, path, fh): return 0
    def fsync(self, path, datasync, fh): os.fsync(fh)
    def release(self, path, fh): os.close(fh)

    def truncate(self, path, length, fh=None):
        if fh is None:
            os.truncate(self.real(path), length)
        else:
            os.ftruncate(fh, length)


if __name__ == '__main__':
    backing, mountpoint = sys.argv[1:3]
    # No kernel caching of names or attributes: every lookup folds again, as the real file systems do.
    FUSE(CaseFoldingView(os.path.realpath(backing)), mountpoint, foreground=True, use_ino=True,
         entry_timeout=0, negative_timeout=0, attr_timeout=0)
