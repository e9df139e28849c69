import torch.distributed as dist


class Loop:
    def __init__(self, tp_rank: int, tp_size: int, tp_cpu_group=None):
        self.tp_rank = tp_rank
        self.tp_size = tp_size
        self.tp_cpu_group = tp_cpu_group

    def event_loop(self) -> None:
        if self.tp_size > 1:
            dist.all_reduce([0], group=self.tp_cpu_group)
        if self.tp_rank == 0:
            dist.broadcast([0], 0, group=self.tp_cpu_group)
