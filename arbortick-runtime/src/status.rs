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

/// A finished status: `Success` or `Failure`, never `Running`.
///
/// What an `instant` leaf's expression returns (the type says it finishes
/// in the tick it runs, so its parent keeps no state for it), and how a
/// requested action ended ([`request`](crate::request)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Outcome {
    /// The node returns `Success`.
    Success,
    /// The node returns `Failure`.
    Failure,
}

impl Outcome {
    /// `Success` for `true`, `Failure` for `false`.
    #[inline]
    pub const fn from_bool(ok: bool) -> Outcome {
        if ok {
            Outcome::Success
        } else {
            Outcome::Failure
        }
    }

    /// The same status, as a [`Status`].
    #[inline]
    pub const fn status(self) -> Status {
        match self {
            Outcome::Success => Status::Success,
            Outcome::Failure => Status::Failure,
        }
    }
}

impl From<bool> for Outcome {
    #[inline]
    fn from(ok: bool) -> Outcome {
        Outcome::from_bool(ok)
    }
}

impl From<Outcome> for Status {
    #[inline]
    fn from(outcome: Outcome) -> Status {
        outcome.status()
    }
}

/// A [`Status`] that is `Running` is not an [`Outcome`].
impl TryFrom<Status> for Outcome {
    type Error = Status;

    #[inline]
    fn try_from(status: Status) -> Result<Outcome, Status> {
        match status {
            Status::Success => Ok(Outcome::Success),
            Status::Failure => Ok(Outcome::Failure),
            Status::Running => Err(Status::Running),
        }
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
    fn outcomes_are_the_finished_statuses() {
        assert_eq!(Status::from(Outcome::Success), Success);
        assert_eq!(Status::from(Outcome::Failure), Failure);
        assert_eq!(Outcome::from(true), Outcome::Success);
        assert_eq!(Outcome::from(false), Outcome::Failure);
        assert_eq!(Outcome::try_from(Success), Ok(Outcome::Success));
        assert_eq!(Outcome::try_from(Failure), Ok(Outcome::Failure));
        assert_eq!(Outcome::try_from(Running), Err(Running));
    }

    #[test]
    fn done_means_not_running() {
        assert!(Success.is_done() && Failure.is_done() && !Running.is_done());
        assert_eq!(Status::from(true), Success);
        assert_eq!(Status::from(false), Failure);
    }
}
