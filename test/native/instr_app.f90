! Compiler instrumentation: a module routine called from a loop; an external procedure (smooth_).
module kernels
  implicit none
contains
  subroutine relax(a, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(n)
    integer :: i
    do i = 2, n - 1
      a(i) = 0.5d0 * (a(i - 1) + a(i + 1))
    end do
  end subroutine relax
end module kernels

subroutine smooth(a, n)
  implicit none
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  a(n) = a(n - 1)
end subroutine smooth

program instr_app
  use kernels
  implicit none
  double precision :: a(100)
  integer :: it
  a = 1.0d0
  a(1) = 0.0d0
  do it = 1, 7
    call relax(a, 100)
  end do
  call smooth(a, 100)
  print '(F12.6)', sum(a)
end program instr_app
