/// The result of ticking a node.
///
/// `Success` and `Failure` are final: the node has finished and holds no
/// state any more. `Running` means the node needs more ticks; it keeps its
/// place and resumes on the next tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The node finished and achieved what it was for.
    Success,
    /// The node finished without achieving what it was for.
    Failure,
    /// The node has not finished; tick it again.
    Running,
}

impl Status {
    /// `true` for [`Status::Success`].
    #[inline]
    pub const fn is_success(self) -> bool {
        matches!(self, Status::Success)
    }

    /// `true` for [`Status::Failure`].
    #[inline]
    pub const fn is_failure(self) -> bool {
        matches!(self, Status::Failure)
    }

    /// `true` for [`Status::Running`].
    #[inline]
    pub const fn is_running(self) -> bool {
        matches!(self, Status::Running)
    }

    /// `true` for [`Status::Success`] and [`Status::Failure`]: the node has finished.
    #[inline]
    pub const fn is_done(self) -> bool {
        !self.is_running()
    }

    /// `Success` for `true`, `Failure` for `false`.
    #[inline]
    pub const fn from_bool(ok: bool) -> Status {
        if ok { Status::Success } else { Status::Failure }
    }

    /// Swaps `Success` and `Failure`; `Running` stays `Running`.
    #[inline]
    pub const fn invert(self) -> Status {
        match self {
            Status::Success => Status::Failure,
            Status::Failure => Status::Success,
            Status::Running => Status::Running,
        }
    }
}

impl From<bool> for Status {
    #[inline]
    fn from(ok: bool) -> Status {
        Status::from_bool(ok)
    }
}

impl core::fmt::Display for Status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Status::Success => "Success",
            Status::Failure => "Failure",
            Status::Running => "Running",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Status::*;
    use super::*;

    #[test]
    fn invert_swaps_only_final_statuses() {
        assert_eq!(Success.invert(), Failure);
        assert_eq!(Failure.invert(), Success);
        assert_eq!(Running.invert(), Running);
    }

    #[test]
    fn done_means_not_running() {
        assert!(Success.is_done() && Failure.is_done() && !Running.is_done());
        assert_eq!(Status::from(true), Success);
        assert_eq!(Status::from(false), Failure);
    }
}
