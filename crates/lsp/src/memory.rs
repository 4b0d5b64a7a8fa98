//! Owns how much memory a server holds: the resident memory of its process and of every process
//! below it (a bridge such as typescript-language-server runs the real server as its child), as
//! the system tells it — `/proc` on Linux, libproc on macOS, nothing elsewhere (then the memory
//! bound cannot fire, and the status says the memory is unknown).

/// At most this many processes below a server are counted: a server that forks without end is
/// not followed for ever.
const MAX_PROCESS_TREE: usize = 64;

/// The resident memory of process `pid` and the processes below it, in bytes; `None` where the
/// system does not tell it or the process is gone.
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let mut total = platform::resident_of(pid)?;
    let mut queue = children_of(pid);
    let mut visited = 0;
    while let Some(child) = queue.pop() {
        visited += 1;
        if visited > MAX_PROCESS_TREE {
            break;
        }
        total += platform::resident_of(child).unwrap_or(0);
        queue.extend(children_of(child));
    }
    Some(total)
}

/// The processes whose parent is `pid`.
pub(crate) fn children_of(pid: u32) -> Vec<u32> {
    platform::children_of(pid)
}

#[cfg(target_os = "linux")]
mod platform {
    /// The resident memory of process `pid` in bytes (`VmRSS`).
    pub(super) fn resident_of(pid: u32) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// The children of process `pid`.
    pub(super) fn children_of(pid: u32) -> Vec<u32> {
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .map(|text| {
                text.split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(target_os = "macos")]
mod platform {
    #![expect(unsafe_code, reason = "libproc's calls are C functions")]

    use std::mem::{MaybeUninit, size_of};

    /// `PROC_PPID_ONLY` of `<sys/proc_info.h>`: list the processes whose parent is the argument
    /// (the libc crate does not name it).
    const PROC_PPID_ONLY: u32 = 6;
    /// Children listed per process at most; more are not counted.
    const MAX_CHILDREN: usize = 256;

    /// The resident memory of process `pid` in bytes (`pti_resident_size`).
    pub(super) fn resident_of(pid: u32) -> Option<u64> {
        let pid = libc::c_int::try_from(pid).ok()?;
        let size = libc::c_int::try_from(size_of::<libc::proc_taskinfo>()).ok()?;
        let mut info = MaybeUninit::<libc::proc_taskinfo>::zeroed();
        // SAFETY: `info` is a `proc_taskinfo` of `size` bytes, the flavour `PROC_PIDTASKINFO`
        // writes one, and `proc_pidinfo` writes at most `size` bytes.
        let written = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDTASKINFO,
                0,
                info.as_mut_ptr().cast(),
                size,
            )
        };
        if written != size {
            return None;
        }
        // SAFETY: the struct was zeroed (every field is an integer) and then written whole.
        let info = unsafe { info.assume_init() };
        Some(info.pti_resident_size)
    }

    /// The children of process `pid`.
    pub(super) fn children_of(pid: u32) -> Vec<u32> {
        let mut pids: Vec<libc::pid_t> = vec![0; MAX_CHILDREN];
        let Ok(bytes) = libc::c_int::try_from(pids.len() * size_of::<libc::pid_t>()) else {
            return Vec::new();
        };
        // SAFETY: `pids` holds `bytes` bytes of `pid_t`; `proc_listpids` writes at most that
        // many and returns how many it wrote.
        let written =
            unsafe { libc::proc_listpids(PROC_PPID_ONLY, pid, pids.as_mut_ptr().cast(), bytes) };
        let count = usize::try_from(written).unwrap_or(0) / size_of::<libc::pid_t>();
        pids.truncate(count.min(MAX_CHILDREN));
        pids.into_iter()
            .filter_map(|child| u32::try_from(child).ok())
            .filter(|child| *child != 0)
            .collect()
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod platform {
    pub(super) fn resident_of(_pid: u32) -> Option<u64> {
        None
    }

    pub(super) fn children_of(_pid: u32) -> Vec<u32> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_and_the_processes_below_it_are_counted() {
        let mut shell = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .expect("a shell");
        // The shell starts its child a moment after it starts itself.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while children_of(shell.id()).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let child = *children_of(shell.id()).first().expect("the shell's child");
        let tree = resident_bytes(shell.id()).expect("the shell's memory is known");
        let alone = platform::resident_of(shell.id()).expect("the shell's own memory");
        let below = platform::resident_of(child).expect("the child's memory");
        assert!(alone > 0 && below > 0);
        assert!(tree >= alone + below, "{tree} < {alone} + {below}");
        let _ = shell.kill();
        let _ = shell.wait();
    }

    #[test]
    fn a_process_that_is_gone_has_no_memory() {
        let mut child = std::process::Command::new("true").spawn().expect("true");
        let pid = child.id();
        child.wait().expect("it exits");
        assert_eq!(resident_bytes(pid), None);
    }
}
