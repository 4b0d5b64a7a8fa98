//! Owns the bound on what a language server may send: its standard output is read through
//! [`BoundedOutput`], which fails the read once the server has sent more than its budget since
//! the budget was last renewed (once per wave). A server that floods its output is then cut off
//! and named, instead of filling the engine's memory.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// The bytes a server may still send before its output is cut, shared by the reader and the
/// caller that renews it.
#[derive(Clone, Debug)]
pub(crate) struct OutputBudget {
    remaining: Arc<AtomicU64>,
    budget: u64,
}

impl OutputBudget {
    /// A budget of `bytes`.
    pub(crate) fn new(bytes: u64) -> Self {
        Self {
            remaining: Arc::new(AtomicU64::new(bytes)),
            budget: bytes,
        }
    }

    /// Gives the server its whole budget again.
    pub(crate) fn renew(&self) {
        self.remaining.store(self.budget, Ordering::Relaxed);
    }

    /// Takes `n` bytes from the budget; false when it does not hold them.
    fn take(&self, n: u64) -> bool {
        self.remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }
}

/// A reader that fails with [`io::ErrorKind::FileTooLarge`] once its budget is spent.
pub(crate) struct BoundedOutput<R> {
    inner: R,
    budget: OutputBudget,
}

impl<R> BoundedOutput<R> {
    pub(crate) fn new(inner: R, budget: OutputBudget) -> Self {
        Self { inner, budget }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedOutput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let read = (buf.filled().len() - before) as u64;
            if !self.budget.take(read) {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!(
                        "the server sent more than {} bytes in one wave",
                        self.budget.budget
                    ),
                )));
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn output_past_the_budget_fails_the_read_until_renewed() {
        let budget = OutputBudget::new(8);
        let mut reader = BoundedOutput::new(&b"0123456789abcdef"[..], budget.clone());
        let mut first = [0u8; 8];
        reader.read_exact(&mut first).await.expect("within budget");
        let mut more = [0u8; 4];
        let error = reader.read_exact(&mut more).await.expect_err("over budget");
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert!(error.to_string().contains("more than 8 bytes"));
        budget.renew();
        let mut reader = BoundedOutput::new(&b"0123"[..], budget);
        reader.read_exact(&mut more).await.expect("renewed");
    }
}
