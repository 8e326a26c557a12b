//! The `memcpy_async` calls: a cooperative copy by a whole group
//! (`cg::memcpy_async(block_or_tile, ...)`, completed by `cg::wait` /
//! `cg::wait_prior<N>` of the group), whose elements any thread of the
//! group may copy, and a copy into a `cuda::pipeline` or onto a
//! `cuda::barrier`, by a group or by one thread, routed to the channel
//! that completes it. Only blocks and power-of-two tiles of at most a
//! warp are groups the model tracks.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    /// `cg::memcpy_async(group, dst, src, bytes)`,
    /// `cg::memcpy_async(group, dst, n, src, n)`,
    /// `cuda::memcpy_async(dst, src, bytes, pipe_or_barrier)`,
    /// `cuda::memcpy_async(group, dst, src, bytes, pipe_or_barrier)`.
    pub(super) fn memcpy_async_call(&mut self, node: Node, vals: &[Value]) -> Value {
        let target = match vals.last() {
            Some(Value::Pipeline(id, block)) => Some((Channel::Pipeline(*id), *block)),
            Some(Value::Ptr(p)) if self.barrier_objects.contains_key(&p.array) => {
                self.use_barrier(p.array, node);
                Some((Channel::Barrier(p.array), false))
            }
            _ => None,
        };
        match (&vals[0], target, vals.len()) {
            (Value::Group(g), None, 4) => {
                self.group_copy(*g, Channel::Group, node, &vals[1], &vals[2], &vals[3])
            }
            // Element counts: `(group, dst, n, src, n)`.
            (Value::Group(g), None, 5) => {
                let bytes = Value::Int(Expr::Const(-1));
                self.group_copy(*g, Channel::Group, node, &vals[1], &vals[3], &bytes)
            }
            (Value::Group(g), Some((ch, block)), 5) => {
                let exact = block && self.start_pipe_copy(ch, node);
                if block && !exact {
                    self.block_scope_pipeline(node);
                }
                self.group_copy(*g, ch, node, &vals[1], &vals[2], &vals[3]);
                self.pipe_copy = None;
            }
            (_, Some((ch, block)), 4) => {
                let exact = block && self.start_pipe_copy(ch, node);
                if block && !exact {
                    self.block_scope_pipeline(node);
                }
                self.issue(ch, false, node, &vals[0], &vals[1], &vals[2]);
                self.pipe_copy = None;
            }
            _ => self.unsupported(
                node,
                "`memcpy_async` with a group, pipeline or barrier the model does not track",
            ),
        }
        Value::Int(Expr::Const(0))
    }

    fn group_copy(
        &mut self,
        g: GroupKind,
        ch: Channel,
        node: Node,
        dst: &Value,
        src: &Value,
        bytes: &Value,
    ) {
        let group_ok = match g {
            GroupKind::Block => true,
            GroupKind::Tile(n) => (1..=32).contains(&n) && n & (n - 1) == 0,
            _ => false,
        };
        if !group_ok {
            self.unsupported(node, "`memcpy_async` of a group the model does not track");
            return;
        }
        self.issue(ch, true, node, dst, src, bytes);
    }
}
