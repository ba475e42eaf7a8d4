from policycheck.executor import LocalProcessExecutor, SerialExecutor, make_executor


def square(x: int) -> int:
    return x * x


def test_local_processes_keep_input_order():
    with LocalProcessExecutor(workers=2) as pool:
        assert pool.map(square, list(range(10))) == [x * x for x in range(10)]


def test_progress_is_reported_per_item():
    seen = []
    SerialExecutor().map(square, [1, 2, 3], progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_executor_is_chosen_by_name():
    assert isinstance(make_executor("serial"), SerialExecutor)
    assert make_executor("local", 2).workers == 2
